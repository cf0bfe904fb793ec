import {
  Annotations,
  Confined,
  Param,
  Replay,
  schemaOf,
  Tool,
  toolFromInstance,
  toolDescriptorOf,
} from 'agenttool';
import { decoratorProblemsOf as problemsOf } from '../support/thrown';

interface Shape {
  a: number;
}

class Node {
  @Param() name!: string;
  @Param('', { items: () => Node }) children!: Node[];
}

class Empty {}

enum Color {
  Red = 'red',
}

class Broken {
  @Param() list!: string[];
  @Param() union!: string | number;
  @Param() shape!: Shape;
  @Param('', { type: 'any', enum: ['x'] }) anything?: unknown;
  @Param('', { type: 'integer', enum: [1, 'two'] }) level!: number;
  @Param('', { enum: Color }) count!: number;
  @Param() lookup!: Map<string, string>;
  @Param() empty!: Empty;
  @Param('', { type: () => undefined as unknown as typeof Empty }) early!: Empty;
  @Param('', { items: 'string' }) notArray!: string;
  @Param() fine!: string;
}

describe('registration errors', () => {
  it('collects every problem of an arguments class, naming the class and field', () => {
    const problems = problemsOf(() => schemaOf(Broken));
    expect(problems).toEqual([
      expect.stringMatching(/^Broken\.list: an array needs its item type.*\{ items: 'string' \}/),
      expect.stringMatching(/^Broken\.union: reflection sees only Object \(a union/),
      expect.stringMatching(/^Broken\.shape: reflection sees only Object \(.*an interface/),
      expect.stringMatching(/^Broken\.anything: enum on a field of type any cannot be expressed/),
      'Broken.level: enum value "two" is not of type integer; make every enum value of type integer or change the field\'s type',
      'Broken.count: enum value "red" is not of type number; make every enum value of type number or change the field\'s type',
      expect.stringMatching(
        /^Broken\.lookup: the field is a Map; declare a Record<string, T> with \{ values: T \}/,
      ),
      expect.stringMatching(/^Broken\.early: the type function returned undefined/),
      'Broken.notArray: items is given but the field is not an array; drop items',
    ]);
  });

  it('says it in one message that starts with the class', () => {
    expect(() => schemaOf(Broken)).toThrow(
      /^agenttool: arguments class "Broken" has 9 problems:\n {2}- Broken\.list: /,
    );
  });

  it('rejects a recursive arguments class', () => {
    expect(problemsOf(() => schemaOf(Node))).toEqual([
      "Node.children: recursive type Node cannot be expressed as a schema (there is no $ref); break the cycle or declare the field { type: 'any' }",
    ]);
  });

  it('rejects a map under strict only', () => {
    class WithMap {
      @Param('', { values: 'string' }) labels!: Record<string, string>;
    }
    expect(schemaOf(WithMap)).toEqual({
      type: 'object',
      properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['labels'],
    });
    expect(problemsOf(() => schemaOf(WithMap, { strict: true }))).toEqual([
      expect.stringMatching(/^WithMap\.labels: maps cannot be expressed in a strict schema/),
    ]);
  });

  it('collects the problems of a tool class with those of its arguments class', () => {
    @Tool({ name: '', description: 'broken', args: Broken })
    @Confined(42 as unknown as () => boolean)
    @Replay('sometimes' as 'safe')
    class NoExecute {}
    const problems = problemsOf(() => toolDescriptorOf(NoExecute));
    expect(problems.slice(0, 2)).toEqual([
      'NoExecute: @Tool needs a non-empty name',
      'NoExecute: a tool class needs an execute(args, ctx) method',
    ]);
    expect(problems).toContain(
      "NoExecute: @Replay takes 'safe', 'keyed' or a function (args, ctx) => Replay",
    );
    expect(problems).toContain(
      'NoExecute: @Confined takes a function (args, ctx) => {confined, by} or a name',
    );
    expect(problems.filter((p) => p.startsWith('Broken.'))).toHaveLength(9);
    expect(() => toolFromInstance(new NoExecute())).toThrow(
      /^agenttool: tool class "NoExecute" has 13 problems/,
    );
  });

  it('rejects a class without @Tool, and a decorator applied twice', () => {
    class Plain {
      execute(): void {}
    }
    expect(problemsOf(() => toolFromInstance(new Plain()))).toEqual([
      'Plain: the class has no @Tool decorator; add @Tool({ name, description, args })',
    ]);
    @Tool({ name: 'a', description: '' })
    @Tool({ name: 'b', description: '' })
    @Annotations({ readOnly: true })
    class Twice {
      execute(): void {}
    }
    expect(problemsOf(() => toolFromInstance(new Twice()))).toEqual([
      'Twice: @Tool is applied twice; keep one',
    ]);
  });

  it('rejects @Param applied twice to one property', () => {
    class Doubled {
      @Param('one')
      @Param('two')
      value!: string;
    }
    expect(problemsOf(() => schemaOf(Doubled))).toEqual([
      'Doubled.value: @Param is applied twice; keep one',
    ]);
  });
});
