/**
 * App scope and session scope, through `ToolApp.create`: one instance per app, or one
 * per client session (a tsyringe child container each), made on first use and closed
 * when the session ends.
 */
import 'reflect-metadata';
import { type Constructor, createContext, Tool } from 'agenttool';
import { Inject, Injectable, Module, type Provider, ToolApp } from 'agenttool/di';
import { Lifecycle, scoped, singleton } from 'tsyringe';
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
