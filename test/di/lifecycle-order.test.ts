/**
 * The whole NestJS lifecycle through `ToolApp.create` and `app.close(signal)`: the five
 * hooks on providers, tools and module classes, in the order NestJS 12.5 calls them
 * (test/frameworks/nest-lifecycle.test.ts runs the same kind of app in a real NestJS
 * application context and compares), failures of starting and closing hooks, and
 * closing between `beforeApplicationShutdown` and `onApplicationShutdown`.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import {
  type BeforeApplicationShutdown,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
  ToolApp,
} from 'agenttool/di';
import { testSession } from '../support/session';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A base class whose five hooks and close() write `<hook> <name>` to `events`. */
function hooked(events: string[], name: string) {
  return class
    implements
      OnModuleInit,
      OnApplicationBootstrap,
      OnModuleDestroy,
      BeforeApplicationShutdown,
      OnApplicationShutdown
  {
    onModuleInit(): void {
      events.push(`onModuleInit ${name}`);
    }
    onApplicationBootstrap(): void {
      events.push(`onApplicationBootstrap ${name}`);
    }
    onModuleDestroy(): void {
      events.push(`onModuleDestroy ${name}`);
    }
    beforeApplicationShutdown(signal?: string): void {
      events.push(`beforeApplicationShutdown ${name} ${String(signal)}`);
    }
    onApplicationShutdown(signal?: string): void {
      events.push(`onApplicationShutdown ${name} ${String(signal)}`);
    }
  };
}

/** Three modules with imports, a provider and a tool in each, and hooks everywhere. */
function threeModules(events: string[]) {
  const closable = (name: string) =>
    class extends hooked(events, name) {
      close(): void {
        events.push(`close ${name}`);
      }
    };
  @Injectable()
  class Clock extends closable('Clock') {}
  @Tool({ name: 'clock', description: 'd' })
  class ClockTool extends hooked(events, 'ClockTool') {
    constructor(readonly clock: Clock) {
      super();
    }
    execute(): string {
      return '';
    }
  }
  @Injectable()
  class Store extends closable('Store') {
    constructor(readonly clock: Clock) {
      super();
    }
  }
  @Tool({ name: 'store', description: 'd' })
  class StoreTool extends hooked(events, 'StoreTool') {
    constructor(readonly store: Store) {
      super();
    }
    execute(): string {
      return '';
    }
  }
  @Injectable()
  class Greeter extends hooked(events, 'Greeter') {
    constructor(
      readonly store: Store,
      readonly clock: Clock,
    ) {
      super();
    }
  }
  @Tool({ name: 'greet', description: 'd' })
  class GreetTool extends hooked(events, 'GreetTool') {
    constructor(readonly greeter: Greeter) {
      super();
    }
    execute(): string {
      return '';
    }
  }
  @Module({ providers: [Clock], tools: [ClockTool], exports: [Clock] })
  class CoreModule extends hooked(events, 'CoreModule') {}
  @Module({ imports: [CoreModule], providers: [Store], tools: [StoreTool], exports: [Store] })
  class DataModule extends hooked(events, 'DataModule') {}
  @Module({ imports: [DataModule, CoreModule], providers: [Greeter], tools: [GreetTool] })
  class AppModule extends hooked(events, 'AppModule') {
    // A module class is built with its module's providers injected, as in NestJS.
    constructor(readonly greeter: Greeter) {
      super();
      events.push(`construct AppModule with ${greeter.constructor.name}`);
    }
  }
  return AppModule;
}

/** `hook` on each of `names`, in order, with the signal for the shutdown hooks. */
const each = (hook: string, names: string[], signal?: string): string[] =>
  names.map((name) => (signal === undefined ? `${hook} ${name}` : `${hook} ${name} ${signal}`));

describe('the NestJS lifecycle across three modules', () => {
  // Depths as NestJS measures them: AppModule 1, DataModule 2, CoreModule 3 (through
  // DataModule, its longest import path). Levels: Clock 1, ClockTool and Store 2,
  // StoreTool and Greeter 3, GreetTool 4.
  const starting = ['Clock', 'ClockTool', 'CoreModule', 'Store', 'StoreTool', 'DataModule'];
  const startOrder = [...starting, 'Greeter', 'GreetTool', 'AppModule'];
  const closeOrder = [
    ...['GreetTool', 'Greeter', 'AppModule'],
    ...['StoreTool', 'Store', 'DataModule'],
    ...['ClockTool', 'Clock', 'CoreModule'],
  ];

  it('starts with onModuleInit then onApplicationBootstrap, deepest module first, the module class last', async () => {
    const events: string[] = [];
    const app = await ToolApp.create(threeModules(events));
    expect(events).toEqual([
      'construct AppModule with Greeter',
      ...each('onModuleInit', startOrder),
      ...each('onApplicationBootstrap', startOrder),
    ]);
    await app.close();
  });

  it('closes with each hook across every module before the next, the root module first, closing between the last two', async () => {
    const events: string[] = [];
    const app = await ToolApp.create(threeModules(events));
    events.length = 0;
    await app.close('SIGTERM');
    expect(events).toEqual([
      ...each('onModuleDestroy', closeOrder),
      ...each('beforeApplicationShutdown', closeOrder, 'SIGTERM'),
      // Newest first: Store was built after the Clock it needs.
      'close Store',
      'close Clock',
      ...each('onApplicationShutdown', closeOrder, 'SIGTERM'),
    ]);
  });

  it('gives the shutdown hooks no signal when close() is given none, and runs them once', async () => {
    const events: string[] = [];
    const app = await ToolApp.create(threeModules(events));
    events.length = 0;
    await Promise.all([app.close(), app.close('SIGINT')]);
    expect(events.filter((e) => e.startsWith('onApplicationShutdown'))).toEqual(
      each('onApplicationShutdown', closeOrder, 'undefined'),
    );
  });
});

describe('hooks that are async or fail', () => {
  it('awaits each group of every hook before the next group', async () => {
    const events: string[] = [];
    const slow = (name: string) =>
      class {
        async onApplicationBootstrap(): Promise<void> {
          events.push(`start ${name}`);
          await tick();
          events.push(`end ${name}`);
        }
        async onApplicationShutdown(): Promise<void> {
          events.push(`start ${name}`);
          await tick();
          events.push(`end ${name}`);
        }
      };
    @Injectable()
    class Inner extends slow('Inner') {}
    @Module({ providers: [Inner], exports: [Inner] })
    class InnerModule extends slow('InnerModule') {}
    @Injectable()
    class Outer extends slow('Outer') {
      constructor(readonly inner: Inner) {
        super();
      }
    }
    @Module({ imports: [InnerModule], providers: [Outer] })
    class Root {}
    const app = await ToolApp.create(Root);
    expect(events).toEqual(
      ['Inner', 'InnerModule', 'Outer'].flatMap((name) => [`start ${name}`, `end ${name}`]),
    );
    events.length = 0;
    await app.close();
    expect(events).toEqual(
      ['Outer', 'Inner', 'InnerModule'].flatMap((name) => [`start ${name}`, `end ${name}`]),
    );
  });

  it('fails the start with every failing hook of the failing group named, and closes what was built', async () => {
    const events: string[] = [];
    @Injectable()
    class Db {
      onModuleInit(): void {
        throw new Error('no connection');
      }
      close(): void {
        events.push('close Db');
      }
    }
    @Injectable()
    class Queue {
      async onModuleInit(): Promise<void> {
        await tick();
        throw new Error('no broker');
      }
    }
    @Injectable()
    class Fine extends hooked(events, 'Fine') {}
    @Module({ providers: [Db, Queue, Fine] })
    class M {}
    const error = (await ToolApp.create(M).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('HOOK_FAILED');
    expect(error.message).toBe(
      '2 hooks failed:\n  - M: Db.onModuleInit() failed: no connection\n  - M: Queue.onModuleInit() failed: no broker',
    );
    expect((error.cause as AggregateError).errors.map((e: Error) => e.message)).toEqual([
      'M: Db.onModuleInit() failed: no connection',
      'M: Queue.onModuleInit() failed: no broker',
    ]);
    // Fine started with them (one level), so it gets the closing hooks; all are closed.
    expect(events).toEqual([
      'onModuleInit Fine',
      'onModuleDestroy Fine',
      'beforeApplicationShutdown Fine undefined',
      'close Db',
      'onApplicationShutdown Fine undefined',
    ]);
  });

  it('fails the start when onApplicationBootstrap throws, after every onModuleInit, and closes what started', async () => {
    const events: string[] = [];
    @Injectable()
    class Server extends hooked(events, 'Server') {
      override onApplicationBootstrap(): void {
        throw new Error('port in use');
      }
    }
    @Module({ providers: [Server] })
    class M extends hooked(events, 'M') {}
    const error = (await ToolApp.create(M).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('HOOK_FAILED');
    expect(error.message).toBe('M: Server.onApplicationBootstrap() failed: port in use');
    expect(events).toEqual([
      'onModuleInit Server',
      'onModuleInit M',
      'onModuleDestroy Server',
      'onModuleDestroy M',
      'beforeApplicationShutdown Server undefined',
      'beforeApplicationShutdown M undefined',
      'onApplicationShutdown Server undefined',
      'onApplicationShutdown M undefined',
    ]);
  });

  it('reports closing hooks that throw, joined, and runs every other hook and closing', async () => {
    const events: string[] = [];
    @Injectable()
    class Flaky extends hooked(events, 'Flaky') {
      override beforeApplicationShutdown(): void {
        throw new Error('busy');
      }
      override onApplicationShutdown(): void {
        throw new Error('gone');
      }
      close(): void {
        events.push('close Flaky');
      }
    }
    @Injectable()
    class Fine extends hooked(events, 'Fine') {}
    @Module({ providers: [Flaky, Fine] })
    class M {}
    const app = await ToolApp.create(M);
    events.length = 0;
    const error = (await app.close().catch((e: unknown) => e)) as AggregateError;
    expect(error.errors.map((e: { code: string; message: string }) => [e.code, e.message])).toEqual(
      [
        ['HOOK_FAILED', 'M: Flaky.beforeApplicationShutdown() failed: busy'],
        ['HOOK_FAILED', 'M: Flaky.onApplicationShutdown() failed: gone'],
      ],
    );
    expect(events).toEqual([
      'onModuleDestroy Flaky',
      'onModuleDestroy Fine',
      'beforeApplicationShutdown Fine undefined',
      'close Flaky',
      'onApplicationShutdown Fine undefined',
    ]);
  });
});

describe('a session', () => {
  it('starts each instance as it is built, and runs every closing hook when it ends', async () => {
    const events: string[] = [];
    @Injectable({ scope: 'session' })
    class Shell extends hooked(events, 'Shell') {
      close(): void {
        events.push('close Shell');
      }
    }
    @Tool({ name: 'sh', description: 'd' })
    class Sh {
      constructor(readonly shell: Shell) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [Sh], providers: [Shell] })
    class M {}
    const app = await ToolApp.create(M);
    const session = testSession('a');
    await app.results([app.job('sh')], { session });
    expect(events).toEqual(['onModuleInit Shell', 'onApplicationBootstrap Shell']);
    await session.end();
    expect(events.slice(2)).toEqual([
      'onModuleDestroy Shell',
      'beforeApplicationShutdown Shell undefined',
      'close Shell',
      'onApplicationShutdown Shell undefined',
    ]);
    await app.close();
  });
});

describe('module classes', () => {
  it('cannot need a session-scoped provider: a module class is built once for the app', async () => {
    @Injectable({ scope: 'session' })
    class Shell {}
    @Module({ providers: [Shell] })
    class M {
      constructor(readonly shell: Shell) {}
    }
    await expect(ToolApp.create(M)).rejects.toMatchObject({
      code: 'INVALID_MODULE',
      message:
        'ToolApp.create(M): M: the module class needs a session-scoped provider (M -> Shell), but a module class is built once for the app; inject what it needs into a session-scoped provider instead',
    });
  });

  it('are reported like any class when what they need is not provided', async () => {
    class Missing {}
    @Module({})
    class M {
      constructor(readonly missing: Missing) {}
    }
    await expect(ToolApp.create(M)).rejects.toMatchObject({
      code: 'MISSING_PROVIDER',
      message: expect.stringContaining("M: M's constructor parameter #0 needs Missing"),
    });
  });
});
