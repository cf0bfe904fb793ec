/**
 * Every scope, through `ToolApp.create`: one instance per app; one per client session
 * (a tsyringe child container each), made on first use and closed when the session
 * ends; one per injection (transient); one per resolution (tsyringe's resolution scope);
 * and the report of app-scoped providers made per session by what they need.
 */
import 'reflect-metadata';
import { type Constructor, createContext, Tool } from 'agenttool';
import { Inject, Injectable, Module, type Provider, type Token, ToolApp } from 'agenttool/di';
import { Lifecycle, registry, scoped, singleton } from 'tsyringe';
import { type TestSession, testSession } from '../support/session';

const apps: ToolApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function create(module: new () => unknown): Promise<ToolApp> {
  const app = await ToolApp.create(module);
  apps.push(app);
  return app;
}

async function run(app: ToolApp, tool: string, session?: TestSession): Promise<unknown> {
  const [outcome] = await app.results([app.job(tool)], { session });
  return outcome?.error === undefined ? outcome?.result.output : `Error: ${outcome.error.message}`;
}

/** A module whose `which` tool reports the instance of `Provider` that serves it. */
function moduleOf(
  provider: Constructor<{ readonly n: number }>,
  scope?: 'session',
  others: Provider[] = [],
): new () => unknown {
  @Tool({ name: 'which', description: 'Which instance serves the call' })
  class Which {
    constructor(@Inject(provider) private readonly served: { readonly n: number }) {}
    execute(): string {
      return `#${this.served.n}`;
    }
  }
  @Module({
    tools: [Which],
    providers: [
      scope === undefined ? provider : { provide: provider, useClass: provider, scope },
      ...others,
    ],
  })
  class M {}
  return M;
}

describe('app scope', () => {
  it('is one instance per app, built at creation, shared by every call and session', async () => {
    let count = 0;
    @Injectable()
    class Counter {
      readonly n = ++count;
    }
    const app = await create(moduleOf(Counter));
    expect(count).toBe(1);
    expect(await run(app, 'which')).toBe('#1');
    expect(await run(app, 'which', testSession('a'))).toBe('#1');
    expect(await run(app, 'which', testSession('b'))).toBe('#1');
    const other = await create(moduleOf(Counter));
    expect(await run(other, 'which')).toBe('#2');
  });

  it("is what tsyringe's @singleton() means, per app rather than process-wide", async () => {
    let count = 0;
    @singleton()
    class Cache {
      readonly n = ++count;
    }
    const first = await create(moduleOf(Cache));
    const second = await create(moduleOf(Cache));
    expect([await run(first, 'which'), await run(second, 'which')]).toEqual(['#1', '#2']);
  });
});

describe('session scope', () => {
  it('is one instance per session, made on its first call and closed when it ends', async () => {
    const events: string[] = [];
    let count = 0;
    @Injectable({ scope: 'session' })
    class Shell {
      readonly n = ++count;
      constructor() {
        events.push(`open ${this.n}`);
      }
      close(): void {
        events.push(`close ${this.n}`);
      }
    }
    const app = await create(moduleOf(Shell));
    const a = testSession('a');
    const b = testSession('b');
    expect(events).toEqual([]);
    expect(await run(app, 'which', a)).toBe('#1');
    expect(await run(app, 'which', b)).toBe('#2');
    expect(await run(app, 'which', a)).toBe('#1');
    await a.end();
    expect(events).toEqual(['open 1', 'open 2', 'close 1']);
    await app.close();
    expect(events).toEqual(['open 1', 'open 2', 'close 1', 'close 2']);
  });

  it('gives calls without a session one shared instance', async () => {
    let count = 0;
    @Injectable({ scope: 'session' })
    class Shell {
      readonly n = ++count;
    }
    const app = await create(moduleOf(Shell));
    expect([await run(app, 'which'), await run(app, 'which')]).toEqual(['#1', '#1']);
    expect(await run(app, 'which', testSession('a'))).toBe('#2');
  });

  it('can be stated by useClass, by a factory, or by tsyringe @scoped(ContainerScoped)', async () => {
    let count = 0;
    class Plain {
      readonly n = ++count;
    }
    const byUseClass = await create(moduleOf(Plain, 'session'));
    expect(await run(byUseClass, 'which', testSession('a'))).toBe('#1');
    expect(await run(byUseClass, 'which', testSession('b'))).toBe('#2');

    @scoped(Lifecycle.ContainerScoped)
    class PerContainer {
      readonly n = ++count;
    }
    const byTsyringe = await create(moduleOf(PerContainer));
    expect(await run(byTsyringe, 'which', testSession('a'))).toBe('#3');
    expect(await run(byTsyringe, 'which', testSession('b'))).toBe('#4');

    @Tool({ name: 'which', description: 'd' })
    class Which {
      constructor(@Inject('N') private readonly n: number) {}
      execute(): string {
        return `#${this.n}`;
      }
    }
    @Module({
      tools: [Which],
      providers: [{ provide: 'N', useFactory: async () => ++count, scope: 'session' }],
    })
    class ByFactory {}
    const byFactory = await create(ByFactory);
    expect(await run(byFactory, 'which', testSession('a'))).toBe('#5');
    expect(await run(byFactory, 'which', testSession('b'))).toBe('#6');
  });

  it('spreads to whatever needs a session-scoped provider', async () => {
    let shells = 0;
    let users = 0;
    @Injectable({ scope: 'session' })
    class Shell {
      readonly n = ++shells;
    }
    @Injectable()
    class UsesShell {
      readonly n = ++users;
      constructor(readonly shell: Shell) {}
    }
    const app = await create(moduleOf(UsesShell, undefined, [Shell]));
    // UsesShell is declared app-scoped, yet it needs a Shell: one of each per session.
    expect(users).toBe(0);
    await run(app, 'which', testSession('a'));
    await run(app, 'which', testSession('b'));
    expect([shells, users]).toEqual([2, 2]);
  });

  it('is built in dependency order within the session, once under concurrent first calls', async () => {
    const order: string[] = [];
    @Injectable({ scope: 'session' })
    class Connection {
      readonly n = 1;
      constructor(@Inject('TOKEN') readonly token: string) {
        order.push(`connection with ${token}`);
      }
    }
    @Tool({ name: 'which', description: 'd' })
    class Which {
      constructor(private readonly connection: Connection) {}
      execute(): string {
        return this.connection.token;
      }
    }
    let fetched = 0;
    @Module({
      tools: [Which],
      providers: [
        Connection,
        {
          provide: 'TOKEN',
          scope: 'session',
          useFactory: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            order.push('token');
            return `token ${++fetched}`;
          },
        },
      ],
    })
    class M {}
    const app = await create(M);
    const session = testSession('a');
    const outcomes = await app.results([app.job('which'), app.job('which')], { session });
    expect(outcomes.map((o) => o.result?.output)).toEqual(['token 1', 'token 1']);
    expect(order).toEqual(['token', 'connection with token 1']);
  });

  it('is refused by app.get, and after the app closed', async () => {
    @Injectable({ scope: 'session' })
    class Shell {
      readonly n = 1;
    }
    const app = await ToolApp.create(moduleOf(Shell));
    const error = (await app.get(Shell).catch((e: unknown) => e)) as { code?: string };
    expect(error.code).toBe('SESSION_SCOPED');
    await app.close();
    const tool = app.tools.lookup('which')!;
    const after = tool.execute(
      { id: 'late', args: '{}' },
      createContext({ session: testSession('late') }),
    );
    await expect(after).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

/** An instance that says which of its kind it is, and what it was injected into. */
function numbered(events: string[], name: string) {
  let count = 0;
  return class {
    readonly n = ++count;
    owner = '';
    onModuleInit(): void {
      events.push(`init ${name} #${this.n} of ${this.owner}`);
    }
    close(): void {
      events.push(`close ${name} #${this.n} of ${this.owner}`);
    }
  };
}

describe('transient scope', () => {
  it('is a new instance for each injection, started and closed with what it was injected into', async () => {
    const events: string[] = [];
    @Injectable({ scope: 'transient' })
    class Counter extends numbered(events, 'Counter') {}
    @Injectable()
    class Audit {
      constructor(
        readonly first: Counter,
        readonly second: Counter,
      ) {
        first.owner = 'Audit[0]';
        second.owner = 'Audit[1]';
      }
    }
    @Tool({ name: 'which', description: 'd' })
    class Which {
      constructor(
        readonly counter: Counter,
        readonly audit: Audit,
      ) {
        counter.owner = 'Which';
      }
      execute(): string {
        return `#${this.counter.n}`;
      }
    }
    @Module({ tools: [Which], providers: [Counter, Audit] })
    class M {}
    const app = await create(M);
    expect(await run(app, 'which')).toBe('#3');
    expect(await run(app, 'which', testSession('a'))).toBe('#3');
    const audit = await app.get(Audit);
    expect([audit.first.n, audit.second.n]).toEqual([1, 2]);
    // Three instances, each started once; none is built for nobody.
    expect(events).toEqual([
      'init Counter #1 of Audit[0]',
      'init Counter #2 of Audit[1]',
      'init Counter #3 of Which',
    ]);
    events.length = 0;
    await app.close();
    expect(events.sort()).toEqual([
      'close Counter #1 of Audit[0]',
      'close Counter #2 of Audit[1]',
      'close Counter #3 of Which',
    ]);
  });

  it('can be stated by useClass, by a factory, or by a tsyringe registration', async () => {
    let count = 0;
    class Plain {
      readonly n = ++count;
    }
    @registry([
      { token: Registered, useClass: Registered, options: { lifecycle: Lifecycle.Transient } },
    ])
    class Registered {
      readonly n = ++count;
    }
    // tsyringe's typings take only ContainerScoped and ResolutionScoped here, but at run
    // time @scoped registers whatever lifecycle it is given.
    @scoped(Lifecycle.Transient as unknown as Lifecycle.ResolutionScoped)
    class Scoped {
      readonly n = ++count;
    }
    const twice = (provider: Provider, token: Token) => {
      @Tool({ name: 'which', description: 'd' })
      class Which {
        constructor(
          @Inject(token) readonly a: { n: number },
          @Inject(token) readonly b: { n: number },
        ) {}
        execute(): string {
          return `#${this.a.n} #${this.b.n}`;
        }
      }
      @Module({ tools: [Which], providers: [provider] })
      class M {}
      return M;
    };
    const byUseClass = twice({ provide: Plain, useClass: Plain, scope: 'transient' }, Plain);
    expect(await run(await create(byUseClass), 'which')).toBe('#1 #2');
    const byFactory = twice(
      { provide: 'N', useFactory: () => ({ n: ++count }), scope: 'transient' },
      'N',
    );
    expect(await run(await create(byFactory), 'which')).toBe('#3 #4');
    expect(await run(await create(twice(Registered, Registered)), 'which')).toBe('#5 #6');
    expect(await run(await create(twice(Scoped, Scoped)), 'which')).toBe('#7 #8');
  });

  it('makes a transient tool a new instance for each call, unhooked, closed when its call ends', async () => {
    const events: string[] = [];
    @Injectable({ scope: 'transient' })
    class Scratch extends numbered(events, 'Scratch') {}
    @Injectable({ scope: 'transient' })
    @Tool({ name: 'which', description: 'd' })
    class Which {
      constructor(readonly scratch: Scratch) {
        scratch.owner = 'Which';
      }
      onModuleInit(): void {
        events.push('init Which');
      }
      execute(): string {
        events.push(`call with Scratch #${this.scratch.n}`);
        return `#${this.scratch.n}`;
      }
    }
    @Module({ tools: [Which], providers: [Scratch] })
    class M {}
    const app = await create(M);
    expect(events).toEqual([]);
    expect([await run(app, 'which'), await run(app, 'which', testSession('a'))]).toEqual([
      '#1',
      '#2',
    ]);
    expect(events).toEqual([
      'call with Scratch #1',
      'close Scratch #1 of Which',
      'call with Scratch #2',
      'close Scratch #2 of Which',
    ]);
  });

  it('inside a session, lives and ends with the session instance it was injected into', async () => {
    const events: string[] = [];
    let count = 0;
    @Injectable({ scope: 'transient' })
    class Buffer {
      readonly n = ++count;
      onModuleInit(): void {
        events.push(`init Buffer #${this.n}`);
      }
      close(): void {
        events.push(`close Buffer #${this.n}`);
      }
    }
    @Injectable({ scope: 'session' })
    class Shell {
      constructor(readonly buffer: Buffer) {}
      get n(): number {
        return this.buffer.n;
      }
    }
    const app = await create(moduleOf(Shell, undefined, [Buffer]));
    const [a, b] = [testSession('a'), testSession('b')];
    expect([await run(app, 'which', a), await run(app, 'which', b)]).toEqual(['#1', '#2']);
    expect(events).toEqual(['init Buffer #1', 'init Buffer #2']);
    await a.end();
    expect(events).toEqual(['init Buffer #1', 'init Buffer #2', 'close Buffer #1']);
  });

  it('is refused by app.get: the app has no instance of its own', async () => {
    @Injectable({ scope: 'transient' })
    class Counter {
      readonly n = 1;
    }
    const app = await create(moduleOf(Counter));
    await expect(app.get(Counter)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message:
        'ToolApp.get: Counter is transient: each injection of it gets an instance of its own, and the app has none; inject it where it is needed',
    });
  });
});

describe('resolution scope', () => {
  it('is one instance for everything built for one instance, another for the next', async () => {
    let count = 0;
    @scoped(Lifecycle.ResolutionScoped)
    class Unit {
      readonly n = ++count;
    }
    @Injectable({ scope: 'transient' })
    class Part {
      constructor(readonly unit: Unit) {}
    }
    @Injectable()
    class Whole {
      constructor(
        readonly unit: Unit,
        readonly part: Part,
      ) {}
    }
    @Injectable()
    class Other {
      constructor(readonly unit: Unit) {}
    }
    @Module({
      providers: [Unit, Part, Whole, Other, { provide: 'R', useClass: Unit, scope: 'resolution' }],
    })
    class M {}
    const app = await create(M);
    const whole = await app.get(Whole);
    const other = await app.get(Other);
    expect(whole.part.unit).toBe(whole.unit);
    expect(other.unit).not.toBe(whole.unit);
    await expect(app.get(Unit)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

describe('the scope report', () => {
  it('names each app-scoped provider built per session, and the chain that makes it so', async () => {
    @Injectable({ scope: 'session' })
    class Shell {
      readonly n = 1;
    }
    @Injectable()
    class Runner {
      readonly n = 1;
      constructor(readonly shell: Shell) {}
    }
    const reports: unknown[] = [];
    const app = await ToolApp.create(moduleOf(Runner, undefined, [Shell]), {
      onScopeReport: (changes) => reports.push(changes),
    });
    apps.push(app);
    const expected = [
      {
        module: 'M',
        provider: 'Runner',
        stated: false,
        chain: ['Runner', 'Shell'],
        message:
          'M: Runner is app-scoped but is built once per session, as it needs a session-scoped provider (Runner -> Shell); make it session-scoped, or inject a longer-lived provider',
      },
      expect.objectContaining({ provider: 'Which', chain: ['Which', 'Runner', 'Shell'] }),
    ];
    expect(reports).toEqual([expected]);
    expect(app.scopeReport).toEqual(expected);
  });

  it('is a process warning, without onScopeReport, for a provider that stated app scope', async () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      @Injectable({ scope: 'session' })
      class Shell {
        readonly n = 1;
      }
      @singleton()
      class Cache {
        readonly n = 1;
        constructor(readonly shell: Shell) {}
      }
      await create(moduleOf(Cache, undefined, [Shell]));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(
        'ToolApp.create(M): M: Cache is stated app-scoped but is built once per session, as it needs a session-scoped provider (Cache -> Shell); make it session-scoped, or inject a longer-lived provider',
        { type: 'AgentToolScopeWarning', code: 'AGENTTOOL_SCOPE_CHANGED' },
      );
      // A default app scope bubbling up, as NestJS does silently, is no warning.
      warn.mockClear();
      @Injectable()
      class Quiet {
        readonly n = 1;
        constructor(readonly shell: Shell) {}
      }
      await create(moduleOf(Quiet, undefined, [Shell]));
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
