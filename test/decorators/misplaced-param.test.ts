import 'reflect-metadata';
import { argumentsParser, Param, schemaOf, Tool, toolDescriptorOf } from 'agenttool';
import { decoratorProblemsOf as problemsOf } from '../support/thrown';

// `@Param` marks an instance field: the instantiator builds `new Class()` and stores
// each argument on it. On a static property or an accessor it could only be lost.

describe('@Param where no argument can be stored', () => {
  it('on a static property is a problem of the class', () => {
    class Statics {
      @Param() a!: string;
      @Param('dropped') static b: string;
    }
    expect(problemsOf(() => schemaOf(Statics))).toEqual([
      'Statics.b: @Param on a static property; arguments are instance fields',
    ]);
    @Tool({ name: 'statics', args: Statics })
    class UsesStatics {
      execute(): string {
        return '';
      }
    }
    expect(problemsOf(() => toolDescriptorOf(UsesStatics))).toEqual([
      'Statics.b: @Param on a static property; arguments are instance fields',
    ]);
  });

  it('on an accessor is a problem of the class', () => {
    class Getter {
      #x = 'init';
      @Param() a!: string;
      @Param() get x(): string {
        return this.#x;
      }
    }
    class Setter {
      @Param() set y(value: string) {
        void value;
      }
    }
    expect(problemsOf(() => argumentsParser(Getter))).toEqual([
      'Getter.x: @Param on an accessor; declare a field',
    ]);
    expect(problemsOf(() => schemaOf(Setter))).toEqual([
      'Setter.y: @Param on an accessor; declare a field',
    ]);
  });

  it('on a method is a problem of the class', () => {
    class Method {
      @Param() run(): string {
        return '';
      }
    }
    expect(problemsOf(() => schemaOf(Method))).toEqual([
      'Method.run: @Param on a method; declare a field',
    ]);
  });
});
