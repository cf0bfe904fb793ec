/**
 * Lifecycle hooks and closing, through `ToolApp.create` and `app.close()`.
 *
 * The order is NestJS's (@nestjs/core 12.5, nest-application-context.js,
 * `callInitHook`, `callDestroyHook`, `callBeforeShutdownHook` and `close()`, with
 * hooks/on-module-init.hook.js and on-module-destroy.hook.js), which
 * test/frameworks/nest-lifecycle.test.ts checks against a real NestJS application
 * context:
 * - `onModuleInit`: module by module (`getModulesToTriggerHooksOn`), the farthest from
 *   the root first (`distance`, the longest import path), modules at one distance in the
 *   order they were found; inside a module level by level, an instance after what it
 *   depends on; the instances of one level at once; a failure stops what follows;
 * - on close, `onModuleDestroy` module by module in the reverse order, inside a module
 *   the dependents before their dependencies; then `beforeApplicationShutdown` in the
 *   same order; then NestJS disposes, which is where agenttool closes what it built, newest
 *   first.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Module,
  type OnModuleDestroy,
  type OnModuleInit,
  ToolApp,
} from 'agenttool/di';
import { testSession } from '../support/session';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function deferred(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/** A class whose hooks and close() write to `events`, named `name`. */
function hooked(events: string[], name: string) {
  return class implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
    onModuleInit(): void {
      events.push(`init ${name}`);
    }
    onModuleDestroy(): void {
      events.push(`destroy ${name}`);
    }
    beforeApplicationShutdown(): void {
      events.push(`before-shutdown ${name}`);
    }
    close(): void {
      events.push(`close ${name}`);
    }
  };
}

describe('lifecycle hooks, in NestJS order', () => {
  it('init farthest module first and dependencies first; destroy and shut down the other way', async () => {
    const events: string[] = [];
    @Injectable()
    class Db extends hooked(events, 'Db') {}
    @Injectable()
    class Cache extends hooked(events, 'Cache') {}
    @Injectable()
    class Repo extends hooked(events, 'Repo') {
      constructor(readonly db: Db) {
        super();
      }
    }
    @Injectable()
    class Logger extends hooked(events, 'Logger') {}
    @Tool({ name: 'list', description: 'd' })
    class ListTool extends hooked(events, 'ListTool') {
      constructor(readonly repo: Repo) {
        super();
      }
      execute(): string {
        return '';
      }
    }
    @Module({ providers: [Db], exports: [Db] })
    class Core {}
    @Module({ imports: [Core], providers: [Repo, Cache], exports: [Repo] })
    class Feature {}
    @Module({ imports: [Feature], providers: [Logger], tools: [ListTool] })
    class Root {}

    const app = await ToolApp.create(Root);
    expect(events).toEqual(['init Db', 'init Cache', 'init Repo', 'init Logger', 'init ListTool']);
    events.length = 0;
    await app.close();
    expect(events).toEqual([
      'destroy ListTool',
      'destroy Logger',
      'destroy Repo',
      'destroy Cache',
      'destroy Db',
      'before-shutdown ListTool',
      'before-shutdown Logger',
      'before-shutdown Repo',
      'before-shutdown Cache',
      'before-shutdown Db',
      // Closing is newest first; creation went in dependency order, module by module.
      'close Cache',
      'close ListTool',
      'close Repo',
      'close Db',
      'close Logger',
    ]);
  });

  it('runs the hooks of one level at once, and awaits them before the next', async () => {
    const events: string[] = [];
    const slow = (name: string) =>
      class {
        async onModuleInit(): Promise<void> {
          events.push(`start ${name}`);
          await tick();
          events.push(`end ${name}`);
        }
      };
    @Injectable()
    class A extends slow('A') {}
    @Injectable()
    class B extends slow('B') {}
    @Injectable()
    class C extends slow('C') {
      constructor(
        readonly a: A,
        readonly b: B,
      ) {
        super();
      }
    }
    @Module({ providers: [A, B, C] })
    class M {}
    const app = await ToolApp.create(M);
    expect(events).toEqual(['start A', 'start B', 'end A', 'end B', 'start C', 'end C']);
    await app.close();
  });

  it('goes module by module among modules at one distance, in import order, and back', async () => {
    const events: string[] = [];
    const slow = (name: string) =>
      class {
        async onModuleInit(): Promise<void> {
          events.push(`start ${name}`);
          await tick();
          events.push(`end ${name}`);
        }
        onModuleDestroy(): void {
          events.push(`destroy ${name}`);
        }
        beforeApplicationShutdown(): void {
          events.push(`before-shutdown ${name}`);
        }
      };
    @Injectable()
    class A0 extends slow('A0') {}
    @Injectable()
    class A1 extends slow('A1') {
      constructor(readonly a0: A0) {
        super();
      }
    }
    @Injectable()
    class B0 extends slow('B0') {}
    @Module({ providers: [A0, A1], exports: [A1] })
    class MA {}
    @Module({ providers: [B0], exports: [B0] })
    class MB {}
    @Tool({ name: 't', description: 'd' })
    class T {
      constructor(
        readonly a1: A1,
        readonly b0: B0,
      ) {}
      execute(): string {
        return '';
      }
    }
    @Module({ imports: [MA, MB], tools: [T] })
    class Root {}
    const app = await ToolApp.create(Root);
    expect(events).toEqual(['start A0', 'end A0', 'start A1', 'end A1', 'start B0', 'end B0']);
    events.length = 0;
    await app.close();
    // NestJS shuts modules down in the reverse of the order it started them.
    expect(events).toEqual([
      'destroy B0',
      'destroy A1',
      'destroy A0',
      'before-shutdown B0',
      'before-shutdown A1',
      'before-shutdown A0',
    ]);
  });

  it('calls them on values and factory results too, and on tools', async () => {
    const events: string[] = [];
    const Value = hooked(events, 'value');
    const Made = hooked(events, 'made');
    @Tool({ name: 't', description: 'd' })
    class T extends hooked(events, 'tool') {
      constructor(
        @Inject('VALUE') readonly value: object,
        @Inject('MADE') readonly made: object,
      ) {
        super();
      }
      execute(): string {
        return '';
      }
    }
    @Module({
      tools: [T],
      providers: [
        { provide: 'VALUE', useValue: new Value() },
        { provide: 'MADE', useFactory: () => new Made() },
      ],
    })
    class M {}
    const app = await ToolApp.create(M);
    expect(events).toEqual(['init value', 'init made', 'init tool']);
    events.length = 0;
    await app.close();
    // A value is the giver's to close: its hooks run, its close() does not. As NestJS
    // counts levels, a value is of level 0 and the factory's result of level 1 (one more
    // than its deepest dependency's, none here), so it is destroyed before the value.
    expect(events).toEqual([
      'destroy tool',
      'destroy made',
      'destroy value',
      'before-shutdown tool',
      'before-shutdown made',
      'before-shutdown value',
      'close tool',
      'close made',
    ]);
  });

  it("runs a session's hooks when the session starts using an instance and when it ends", async () => {
    const events: string[] = [];
    @Injectable({ scope: 'session' })
    class Shell extends hooked(events, 'Shell') {}
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
    expect(events).toEqual([]);
    await app.results([app.job('sh')], { session });
    expect(events).toEqual(['init Shell']);
    await session.end();
    expect(events).toEqual(['init Shell', 'destroy Shell', 'before-shutdown Shell', 'close Shell']);
    await app.close();
    expect(events).toHaveLength(4);
  });
});

describe('hook failures', () => {
  it('fail creation with HOOK_FAILED and close what was built', async () => {
    const events: string[] = [];
    @Injectable()
    class Fine extends hooked(events, 'Fine') {}
    @Injectable()
    class Broken {
      constructor(readonly fine: Fine) {}
      onModuleInit(): void {
        throw new Error('no connection');
      }
      close(): void {
        events.push('close Broken');
      }
    }
    @Module({ providers: [Fine, Broken] })
    class M {}
    const error = (await ToolApp.create(M).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('HOOK_FAILED');
    expect(error.message).toBe('M: Broken.onModuleInit() failed: no connection');
    expect((error.cause as Error).message).toBe('no connection');
    // Fine was initialized, so it is destroyed; both are closed, newest first.
    expect(events).toEqual([
      'init Fine',
      'destroy Fine',
      'before-shutdown Fine',
      'close Broken',
      'close Fine',
    ]);
  });

  it('stop at the first level with a failure: what depends on it is not initialized', async () => {
    const events: string[] = [];
    @Injectable()
    class Db {
      onModuleInit(): void {
        events.push('init Db');
        throw new Error('no connection');
      }
      close(): void {
        events.push('close Db');
      }
    }
    @Injectable()
    class Clock extends hooked(events, 'Clock') {}
    @Injectable()
    class Repo extends hooked(events, 'Repo') {
      constructor(readonly db: Db) {
        super();
      }
    }
    @Tool({ name: 't', description: 'd' })
    class T extends hooked(events, 'T') {
      constructor(readonly repo: Repo) {
        super();
      }
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T], providers: [Db, Clock, Repo] })
    class M {}
    const error = (await ToolApp.create(M).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('HOOK_FAILED');
    expect(error.message).toBe('M: Db.onModuleInit() failed: no connection');
    // Clock is of Db's level, so its hook ran with Db's; Repo's and T's never ran. Only
    // what was initialized gets the shutdown hooks; everything built is closed.
    expect(events).toEqual([
      'init Db',
      'init Clock',
      'destroy Clock',
      'before-shutdown Clock',
      'close T',
      'close Repo',
      'close Clock',
      'close Db',
    ]);
  });

  it('stop the modules after the failing one', async () => {
    const events: string[] = [];
    @Injectable()
    class Far {
      onModuleInit(): void {
        events.push('init Far');
        throw new Error('down');
      }
    }
    @Injectable()
    class Near extends hooked(events, 'Near') {}
    @Module({ providers: [Far], exports: [Far] })
    class Inner {}
    @Module({ imports: [Inner], providers: [Near] })
    class Root {}
    const error = (await ToolApp.create(Root).catch((e: unknown) => e)) as Error & {
      code?: string;
    };
    expect(error.message).toBe('Inner: Far.onModuleInit() failed: down');
    expect(events).toEqual(['init Far', 'close Near']);
  });

  it('of a shutdown hook are joined with the rest, and closing goes on', async () => {
    const events: string[] = [];
    @Injectable()
    class Stubborn {
      onModuleDestroy(): void {
        throw new Error('busy');
      }
      close(): void {
        events.push('close Stubborn');
      }
    }
    @Injectable()
    class Fine extends hooked(events, 'Fine') {}
    @Module({ providers: [Fine, Stubborn] })
    class M {}
    const app = await ToolApp.create(M);
    events.length = 0;
    const error = (await app.close().catch((e: unknown) => e)) as AggregateError;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors.map((e: { code: string; message: string }) => [e.code, e.message])).toEqual(
      [['HOOK_FAILED', 'M: Stubborn.onModuleDestroy() failed: busy']],
    );
    expect(events).toEqual([
      'destroy Fine',
      'before-shutdown Fine',
      'close Stubborn',
      'close Fine',
    ]);
  });
});

describe('closing', () => {
  it('closes once: a second close() returns the first one’s promise and waits for it', async () => {
    const gate = deferred();
    const events: string[] = [];
    @Injectable()
    class Slow {
      async close(): Promise<void> {
        events.push('closing');
        await gate.promise;
        events.push('closed');
      }
    }
    @Module({ providers: [Slow] })
    class M {}
    const app = await ToolApp.create(M);
    const first = app.close();
    const second = app.close();
    expect(second).toBe(first);
    let settled = false;
    void second.then(() => (settled = true));
    for (let i = 0; i < 5; i++) await tick();
    expect(settled).toBe(false);
    gate.release();
    await second;
    expect(events).toEqual(['closing', 'closed']);
  });

  it('waits for a session still closing when the app closes meanwhile', async () => {
    const gate = deferred();
    const events: string[] = [];
    @Injectable({ scope: 'session' })
    class Shell {
      async close(): Promise<void> {
        events.push('shell closing');
        await gate.promise;
        events.push('shell closed');
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
    const ending = session.end();
    await tick();
    const closing = app.close().then(() => events.push('app closed'));
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual(['shell closing']);
    gate.release();
    await Promise.all([ending, closing]);
    expect(events).toEqual(['shell closing', 'shell closed', 'app closed']);
  });

  it('does not wait for a session build that never settles, and closes its result if it comes', async () => {
    const events: string[] = [];
    let arrive: ((connection: object) => void) | undefined;
    @Injectable()
    class Pool {
      close(): void {
        events.push('close Pool');
      }
    }
    @Injectable({ scope: 'session' })
    class Shell {
      close(): void {
        events.push('close Shell');
      }
    }
    @Tool({ name: 'ok', description: 'd' })
    class Ok {
      constructor(
        readonly shell: Shell,
        readonly pool: Pool,
      ) {}
      execute(): string {
        return 'ok';
      }
    }
    @Tool({ name: 'hang', description: 'd' })
    class Hang {
      constructor(@Inject('CONNECTION') readonly connection: object) {}
      execute(): string {
        return 'hang';
      }
    }
    @Module({
      tools: [Ok, Hang],
      providers: [
        Pool,
        Shell,
        {
          provide: 'CONNECTION',
          scope: 'session',
          useFactory: () => new Promise<object>((resolve) => (arrive = resolve)),
        },
      ],
    })
    class M {}
    const app = await ToolApp.create(M);
    await app.results([app.job('ok')], { session: testSession('b') });
    const hanging = app.results([app.job('hang')], { session: testSession('a') });
    while (arrive === undefined) await tick();

    // Settles within a few turns of the event loop, though the build never did.
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    for (let i = 0; i < 50 && !closed; i++) await tick();
    expect(closed).toBe(true);
    await closing;
    expect(events).toEqual(['close Shell', 'close Pool']);
    const [outcome] = await hanging;
    expect(outcome?.error).toMatchObject({
      code: 'CLOSED',
      message: expect.stringContaining('the session ended while it was being built'),
    });

    // The late result is the app's: closed as it arrives.
    arrive({ close: () => void events.push('close late connection') });
    for (let i = 0; i < 5; i++) await tick();
    expect(events).toEqual(['close Shell', 'close Pool', 'close late connection']);
  });

  it('runs no tool once closed: an app-scoped one fails CLOSED as a session-scoped one does', async () => {
    @Injectable()
    class Db {
      open = true;
      close(): void {
        this.open = false;
      }
    }
    @Tool({ name: 'query', description: 'Reads the database' })
    class Query {
      constructor(private readonly db: Db) {}
      execute(): string {
        return `open: ${this.db.open}`;
      }
    }
    @Injectable({ scope: 'session' })
    class Cursor {}
    @Tool({ name: 'fetch', description: 'Reads a cursor' })
    class Fetch {
      constructor(private readonly cursor: Cursor) {}
      execute(): string {
        return `cursor: ${this.cursor.constructor.name}`;
      }
    }
    @Module({ tools: [Query, Fetch], providers: [Db, Cursor] })
    class M {}
    const app = await ToolApp.create(M);
    const session = testSession('s');
    const before = await app.results([app.job('query'), app.job('fetch')], { session });
    expect(before.map((outcome) => outcome.result?.output)).toEqual([
      'open: true',
      'cursor: Cursor',
    ]);
    await app.close();
    const after = await app.results([app.job('query'), app.job('fetch')], { session });
    for (const outcome of after) {
      expect(outcome.error).toMatchObject({
        code: 'CLOSED',
        message: 'agenttool/di: the app is closed',
      });
    }
  });

  it('closes by close(), dispose() or Symbol.asyncDispose, each object once', async () => {
    const closed: string[] = [];
    @Injectable()
    class ByDispose {
      dispose(): void {
        closed.push('dispose');
      }
    }
    @Injectable()
    class BySymbol {
      async [Symbol.asyncDispose](): Promise<void> {
        closed.push('asyncDispose');
      }
    }
    @Module({
      providers: [ByDispose, BySymbol, { provide: 'SAME', useExisting: ByDispose }],
    })
    class M {}
    const app = await ToolApp.create(M);
    await app.close();
    await app.close();
    expect(closed.sort()).toEqual(['asyncDispose', 'dispose']);
  });

  it('reports a failing close() as CLOSE_FAILED, joined, and closes the rest', async () => {
    @Injectable()
    class Stuck {
      close(): void {
        throw new Error('stuck');
      }
    }
    @Module({ providers: [Stuck] })
    class M {}
    const app = await ToolApp.create(M);
    const error = (await app.close().catch((e: unknown) => e)) as AggregateError;
    expect(error.message).toBe('ToolApp.close: 1 failed');
    expect(error.errors[0]).toMatchObject({
      code: 'CLOSE_FAILED',
      message: 'closing Stuck: stuck',
    });
  });
});
