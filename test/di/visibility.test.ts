/**
 * What a module sees, through `ToolApp.create`: its own providers, what its imports
 * export (re-exports included) and the built-in facades; nothing else. Every problem is
 * found before anything is built.
 */
import 'reflect-metadata';
import { type Constructor, Tool } from 'agenttool';
import { CallRecorder, Inject, Injectable, Module, ModuleError, ToolApp } from 'agenttool/di';

const apps: ToolApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function create(module: new () => unknown): Promise<ToolApp> {
  const app = await ToolApp.create(module);
  apps.push(app);
  return app;
}

async function problemsOf(module: new () => unknown): Promise<string[]> {
  const error = await ToolApp.create(module).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModuleError);
  return (error as ModuleError).problems.map((p) => p.message);
}

/** A tool that shows the value of `token` it was given. */
function showing(token: string): Constructor {
  @Tool({ name: `show_${token.toLowerCase()}`, description: 'Shows a value' })
  class Show {
    constructor(@Inject(token) readonly value: string) {}
    execute(): string {
      return this.value;
    }
  }
  return Show;
}

async function output(app: ToolApp, tool: string): Promise<unknown> {
  const [outcome] = await app.results([app.job(tool)]);
  return outcome?.result?.output;
}

describe('visibility', () => {
  it("gives each module its own private provider of a token, even another module's", async () => {
    @Module({ tools: [showing('NAME')], providers: [{ provide: 'NAME', useValue: 'first' }] })
    class First {}
    @Tool({ name: 'second', description: 'd' })
    class Second {
      constructor(@Inject('NAME') readonly value: string) {}
      execute(): string {
        return this.value;
      }
    }
    @Module({ tools: [Second], providers: [{ provide: 'NAME', useValue: 'second' }] })
    class SecondModule {}
    @Module({ imports: [First, SecondModule] })
    class Root {}
    const app = await create(Root);
    expect([await output(app, 'show_name'), await output(app, 'second')]).toEqual([
      'first',
      'second',
    ]);
  });

  it('builds a class listed by two modules twice, each with its own module’s dependencies', async () => {
    @Injectable()
    class Greeting {
      constructor(@Inject('WORD') readonly word: string) {}
    }
    @Tool({ name: 'left', description: 'd' })
    class Left {
      constructor(readonly greeting: Greeting) {}
      execute(): string {
        return this.greeting.word;
      }
    }
    @Tool({ name: 'right', description: 'd' })
    class Right {
      constructor(readonly greeting: Greeting) {}
      execute(): string {
        return this.greeting.word;
      }
    }
    @Module({ tools: [Left], providers: [Greeting, { provide: 'WORD', useValue: 'hello' }] })
    class LeftModule {}
    @Module({ tools: [Right], providers: [Greeting, { provide: 'WORD', useValue: 'bonjour' }] })
    class RightModule {}
    @Module({ imports: [LeftModule, RightModule] })
    class Root {}
    const app = await create(Root);
    expect([await output(app, 'left'), await output(app, 'right')]).toEqual(['hello', 'bonjour']);
  });

  it('lets importers see what a module exports, and what it re-exports', async () => {
    @Module({ providers: [{ provide: 'DEEP', useValue: 'deep' }], exports: ['DEEP'] })
    class Deep {}
    // Re-exports a token it imports, and a whole module.
    @Module({ imports: [Deep], exports: ['DEEP'] })
    class ByToken {}
    @Module({ imports: [Deep], exports: [Deep] })
    class ByModule {}
    @Module({ imports: [ByToken], tools: [showing('DEEP')] })
    class ThroughToken {}
    @Tool({ name: 'through_module', description: 'd' })
    class ThroughModuleTool {
      constructor(@Inject('DEEP') readonly value: string) {}
      execute(): string {
        return this.value;
      }
    }
    @Module({ imports: [ByModule], tools: [ThroughModuleTool] })
    class ThroughModule {}
    @Module({ imports: [ThroughToken, ThroughModule] })
    class Root {}
    const app = await create(Root);
    expect(await output(app, 'show_deep')).toBe('deep');
    expect(await output(app, 'through_module')).toBe('deep');
    // One module node however often it is imported: one value.
    expect(await app.get('DEEP').catch(() => 'hidden')).toBe('hidden');
  });

  it('shows the built-in facades to every module without a provider', async () => {
    @Tool({ name: 'facade', description: 'd' })
    class UsesFacade {
      constructor(readonly recorder: CallRecorder) {}
      execute(): string {
        return this.recorder.constructor.name;
      }
    }
    @Module({ tools: [UsesFacade] })
    class Feature {}
    @Module({ imports: [Feature] })
    class Root {}
    expect(await output(await create(Root), 'facade')).toBe('CallRecorder');
  });

  it('refuses what an import keeps private, and exports of what a module does not have', async () => {
    @Module({ providers: [{ provide: 'SECRET', useValue: 's' }] })
    class Keeper {}
    @Module({ imports: [Keeper], tools: [showing('SECRET')], exports: ['NOTHING'] })
    class Asker {}
    expect(await problemsOf(Asker)).toEqual([
      `Asker: Show's constructor parameter #0 needs "SECRET", which Keeper provides but does not export; add "SECRET" to Keeper's exports`,
      `Asker exports "NOTHING", but neither provides it nor imports a module that exports it; add it to Asker's providers or remove it from the exports`,
    ]);
  });

  it('lets the root see only its own providers and its imports’ exports through app.get', async () => {
    @Module({
      providers: [
        { provide: 'PUBLIC', useValue: 'p' },
        { provide: 'PRIVATE', useValue: 'q' },
      ],
      exports: ['PUBLIC'],
    })
    class Library {}
    @Module({ imports: [Library], providers: [{ provide: 'OWN', useValue: 'o' }] })
    class Root {}
    const app = await create(Root);
    expect([await app.get('OWN'), await app.get('PUBLIC')]).toEqual(['o', 'p']);
    await expect(app.get('PRIVATE')).rejects.toMatchObject({
      code: 'MISSING_PROVIDER',
      message: 'ToolApp.get: no provider of "PRIVATE" is visible in Root',
    });
  });

  it('reports every problem together, and builds nothing', async () => {
    let built = 0;
    @Injectable()
    class Costly {
      constructor() {
        built++;
      }
    }
    @Tool({ name: 'bad', description: 'd' })
    class BadTool {
      constructor(
        readonly costly: Costly,
        @Inject('MISSING') readonly missing: string,
      ) {}
    }
    class NotAModule {}
    @Module({ imports: [NotAModule], tools: [BadTool], providers: [Costly] })
    class Root {}
    const problems = await problemsOf(Root);
    expect(problems).toEqual([
      'Root imports NotAModule at imports[0], which has no @Module decorator; decorate it with @Module({ ... }) or remove it from the imports',
      `Root: BadTool's constructor parameter #1 needs "MISSING", but no provider of it is visible in Root; add a provider of "MISSING" to Root's providers, or import a module that exports it`,
      'Root: BadTool: a tool class needs an execute(args, ctx) method',
    ]);
    expect(built).toBe(0);
  });
});
