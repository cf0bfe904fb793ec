/**
 * Arguments classes compiled without `emitDecoratorMetadata` (as tsc does when the flag
 * is off, and as esbuild-based runners always do): a field whose type only reflection
 * could tell fails when the class is read, and the error names the flag.
 */
import { createContext, schemaOf, type Tool, toolFromInstance } from 'agenttool';
import { compileDecorated, removeCompiled } from '../support/compile-decorated';
import { decoratorProblemsOf as problemsOf } from '../support/thrown';

const SOURCE = `
import { Param, Tool } from 'agenttool';

export class GreetArgs {
  @Param('Who to greet') name!: string;
  @Param('How often', { type: 'integer' }) times!: number;
  @Param('Extra words', { items: 'string' }) words!: string[];
}

@Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })
export class Greet {
  execute(args: GreetArgs): string {
    return 'Hello, ' + args.name + '!';
  }
}
`;

afterAll(removeCompiled);

describe('an arguments class compiled without decorator metadata', () => {
  const compiled = compileDecorated(SOURCE, { emitDecoratorMetadata: false });
  const GreetArgs = compiled.GreetArgs as new () => object;
  const Greet = compiled.Greet as new () => object;

  it('names emitDecoratorMetadata for the field only reflection could type, and no other', () => {
    expect(problemsOf(() => schemaOf(GreetArgs))).toEqual([
      `GreetArgs.name: TypeScript emitted no type for the field; compile with "emitDecoratorMetadata": true, or give @Param a type ({ type: 'string' }, a class, or () => SomeClass)`,
    ]);
  });

  it('fails the same way when the tool is read', () => {
    expect(() => toolFromInstance(new Greet())).toThrow(/"emitDecoratorMetadata": true/);
  });

  it('works once the fields state their types', () => {
    const typed = compileDecorated(
      SOURCE.replace(`@Param('Who to greet')`, `@Param('Who to greet', { type: 'string' })`),
      { emitDecoratorMetadata: false },
    );
    expect(schemaOf(typed.GreetArgs as new () => object)).toMatchObject({
      properties: { name: { type: 'string' }, times: { type: 'integer' } },
    });
  });
});

describe('the same class compiled with decorator metadata', () => {
  it('reads without a problem and runs', async () => {
    const compiled = compileDecorated(SOURCE, { emitDecoratorMetadata: true });
    const tool: Tool = toolFromInstance(new (compiled.Greet as new () => object)());
    expect(tool.parameters).toMatchObject({ properties: { name: { type: 'string' } } });
    const result = await tool.execute(
      { id: 'c1', args: '{"name":"Ada","times":1,"words":[]}' },
      createContext(),
    );
    expect(result.output).toBe('Hello, Ada!');
  });
});
