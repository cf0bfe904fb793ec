/**
 * Arguments classes compiled without `emitDecoratorMetadata` (as tsc does when the flag
 * is off, and as esbuild-based runners always do): a field whose type only reflection
 * could tell fails when the class is read, and the error names the flag, esbuild (tsx)
 * as the likely cause, and both fixes. Compiled with standard (TC39) decorators
 * (`experimentalDecorators` off), each decorator says so at once.
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

  it('names the fields only reflection could type, esbuild as the likely cause, and both fixes', () => {
    expect(problemsOf(() => schemaOf(GreetArgs))).toEqual([
      `GreetArgs: TypeScript emitted no decorator metadata for any field, so the type of field name is unknown. If tsconfig.json sets "emitDecoratorMetadata": true, the likely cause is a runner built on esbuild (tsx, esbuild, Vite, Vitest), which never emits it. Fix either way: run the code through a compiler that emits it (tsc, or SWC: node -r @swc-node/register), or give each of those fields its type in @Param ({ type: 'string' }, a class, or () => SomeClass)`,
    ]);
  });

  it('fails the same way when the tool is read', () => {
    expect(() => toolFromInstance(new Greet())).toThrow(/no decorator metadata for any field/);
  });

  it('names every field that needs metadata in one problem', () => {
    const bare = compileDecorated(
      SOURCE.replace(`{ type: 'integer' }`, '{}').replace(
        `{ items: 'string' }`,
        `{ type: ['string'] }`,
      ),
      { emitDecoratorMetadata: false },
    );
    expect(problemsOf(() => schemaOf(bare.GreetArgs as new () => object))).toEqual([
      expect.stringMatching(/^GreetArgs: .* the types of fields name, times are unknown\. /),
    ]);
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

describe('a tool class compiled with standard (TC39) decorators', () => {
  it('fails as it is decorated, naming the decorator and the tsconfig.json settings', () => {
    expect(() =>
      compileDecorated(SOURCE, { emitDecoratorMetadata: false, experimentalDecorators: false }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_DECORATOR',
        message: `agenttool: @Param on the field name was applied as a standard (TC39) decorator; agenttool's decorators are TypeScript's experimental decorators: set "experimentalDecorators": true and "emitDecoratorMetadata": true in the tsconfig.json the code is compiled with (tsx and esbuild read it too)`,
      }),
    );
  });

  it('names a class decorator and its class, @Module included', () => {
    const source = (decorator: string) => `
import { Tool } from 'agenttool';
import { Injectable, Module } from 'agenttool/di';
${decorator}
export class Named {
  execute(): string {
    return 'ran';
  }
}
`;
    for (const [decorator, name] of [
      [`@Tool({ name: 'named', description: 'Named' })`, 'Tool'],
      ['@Module({})', 'Module'],
      ['@Injectable()', 'Injectable'],
    ] as const) {
      expect(() =>
        compileDecorated(source(decorator), {
          emitDecoratorMetadata: false,
          experimentalDecorators: false,
        }),
      ).toThrow(
        `agenttool: @${name} on the class Named was applied as a standard (TC39) decorator`,
      );
    }
  });
});
