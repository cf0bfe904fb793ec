/**
 * Each kind of provider and token, through `ToolApp.create`: what is built, what is
 * shared, what is closed.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import {
  Inject,
  Injectable,
  InjectionToken,
  Module,
  ToolApp,
  type Provider,
  type Token,
} from 'agenttool/di';
import { testSession } from '../support/session';

const apps: ToolApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function create(module: new () => unknown): Promise<ToolApp> {
  const app = await ToolApp.create(module);
  apps.push(app);
  return app;
}

/** A module that provides `providers` and lists one tool that needs `token`. */
function appNeeding<T>(token: Token<T>, providers: Provider[]): new () => unknown {
  @Tool({ name: 'show', description: 'Shows what it was given' })
  class Show {
    constructor(@Inject(token) readonly given: T) {}
    execute(): string {
      return String(this.given);
    }
  }
  @Module({ tools: [Show], providers })
  class AppModule {}
  return AppModule;
}

async function outputOf(app: ToolApp, tool = 'show'): Promise<unknown> {
  const [outcome] = await app.results([app.job(tool)]);
  return outcome?.error === undefined ? outcome?.result.output : `Error: ${outcome.error.message}`;
}

describe('class providers', () => {
  it('build a listed class once per app, with its own dependencies', async () => {
    let built = 0;
    @Injectable()
    class Clock {
      readonly n = ++built;
      toString(): string {
        return `clock ${this.n}`;
      }
    }
    @Injectable()
    class Calendar {
      constructor(readonly clock: Clock) {}
      toString(): string {
        return `calendar on ${String(this.clock)}`;
      }
    }
    const app = await create(appNeeding(Calendar, [Clock, Calendar]));
    expect(await outputOf(app)).toBe('calendar on clock 1');
    expect(await app.get(Clock)).toBe((await app.get(Calendar)).clock);
    expect(built).toBe(1);
  });

  it('build useClass under another token, an abstract class included', async () => {
    abstract class Greeter {
      abstract greet(): string;
    }
    @Injectable()
    class Polite extends Greeter {
      greet(): string {
        return 'good day';
      }
      override toString(): string {
        return this.greet();
      }
    }
    const app = await create(appNeeding(Greeter, [{ provide: Greeter, useClass: Polite }]));
    expect(await outputOf(app)).toBe('good day');
    expect(await app.get(Greeter)).toBeInstanceOf(Polite);
  });
});

describe('inherited constructors', () => {
  interface Config {
    readonly name: string;
  }

  it("take the @Inject tokens of the base class's constructor they inherit", async () => {
    @Injectable()
    class Clock {
      toString(): string {
        return 'clock';
      }
    }
    class Base {
      constructor(
        @Inject('CONFIG') readonly config: Config,
        readonly clock: Clock,
      ) {}
    }
    class Middle extends Base {}
    @Tool({ name: 'show', description: 'd' })
    class Show extends Middle {
      execute(): string {
        return `${this.config.name} on ${String(this.clock)}`;
      }
    }
    @Module({
      tools: [Show],
      providers: [Clock, { provide: 'CONFIG', useValue: { name: 'base' } }],
    })
    class M {}
    expect(await outputOf(await create(M), 'show')).toBe('base on clock');
  });

  it('of their own use their own @Inject tokens, not the base class’s', async () => {
    class Base {
      constructor(@Inject('BASE') readonly config: Config) {}
    }
    @Tool({ name: 'show', description: 'd' })
    class Show extends Base {
      constructor(@Inject('OWN') own: Config) {
        super(own);
      }
      execute(): string {
        return this.config.name;
      }
    }
    @Module({
      tools: [Show],
      providers: [
        { provide: 'BASE', useValue: { name: 'base' } },
        { provide: 'OWN', useValue: { name: 'own' } },
      ],
    })
    class M {}
    expect(await outputOf(await create(M), 'show')).toBe('own');
  });
});

describe('value providers', () => {
  it('provide the value itself, which the app never closes', async () => {
    let closed = false;
    const value = {
      close: () => {
        closed = true;
      },
      toString: () => 'the value',
    };
    const app = await ToolApp.create(appNeeding('VALUE', [{ provide: 'VALUE', useValue: value }]));
    expect(await outputOf(app)).toBe('the value');
    expect(await app.get('VALUE')).toBe(value);
    await app.close();
    expect(closed).toBe(false);
  });
});

describe('factory providers', () => {
  it('call a sync factory with what inject lists, in order', async () => {
    const app = await create(
      appNeeding('SUM', [
        { provide: 'A', useValue: 2 },
        { provide: 'B', useValue: 40 },
        {
          provide: 'SUM',
          useFactory: (a: number, b: number) => `${a}+${b}=${a + b}`,
          inject: ['A', 'B'],
        },
      ]),
    );
    expect(await outputOf(app)).toBe('2+40=42');
  });

  it('await an async factory before anything that needs its value is built', async () => {
    const order: string[] = [];
    @Injectable()
    class Client {
      constructor(@Inject('URL') readonly url: string) {
        order.push(`client for ${url}`);
      }
      toString(): string {
        return this.url;
      }
    }
    const app = await create(
      appNeeding(Client, [
        Client,
        {
          provide: 'URL',
          useFactory: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            order.push('url resolved');
            return 'https://example.test';
          },
        },
      ]),
    );
    expect(order).toEqual(['url resolved', 'client for https://example.test']);
    expect(await outputOf(app)).toBe('https://example.test');
  });

  it('close what a factory made, unlike a value', async () => {
    const closed: string[] = [];
    const app = await ToolApp.create(
      appNeeding('MADE', [
        { provide: 'MADE', useFactory: () => ({ close: () => void closed.push('made') }) },
      ]),
    );
    await app.close();
    expect(closed).toEqual(['made']);
  });
});

describe('a factory that returns what it did not make', () => {
  it('leaves a value it was given to its giver: not closed, hooked once', async () => {
    const events: string[] = [];
    const given = {
      onModuleInit: () => void events.push('init'),
      onModuleDestroy: () => void events.push('destroy'),
      close: () => void events.push('close'),
    };
    const app = await ToolApp.create(
      appNeeding('PASSED', [
        { provide: 'GIVEN', useValue: given },
        { provide: 'PASSED', useFactory: (value: object) => value, inject: ['GIVEN'] },
        // The same value again, reached without inject.
        { provide: 'CAPTURED', useFactory: () => given },
      ]),
    );
    expect(await app.get('PASSED')).toBe(given);
    expect(await app.get('CAPTURED')).toBe(given);
    await app.close();
    expect(events).toEqual(['init', 'destroy']);
  });

  it('in a session, leaves an app instance to the app: ending the session neither hooks nor closes it', async () => {
    const events: string[] = [];
    @Injectable()
    class Pool {
      onModuleInit(): void {
        events.push('init Pool');
      }
      onModuleDestroy(): void {
        events.push('destroy Pool');
      }
      close(): void {
        events.push('close Pool');
      }
      toString(): string {
        return 'pool';
      }
    }
    const app = await ToolApp.create(
      appNeeding('CONNECTION', [
        Pool,
        {
          provide: 'CONNECTION',
          scope: 'session',
          useFactory: (pool: Pool) => pool,
          inject: [Pool],
        },
      ]),
    );
    const session = testSession('a');
    const [outcome] = await app.results([app.job('show')], { session });
    expect(outcome?.result?.output).toBe('pool');
    await session.end();
    expect(events).toEqual(['init Pool']);
    await app.close();
    expect(events).toEqual(['init Pool', 'destroy Pool', 'close Pool']);
  });
});

describe('alias providers', () => {
  it('answer the instance of the token they name', async () => {
    @Injectable()
    class Store {
      toString(): string {
        return 'store';
      }
    }
    const app = await create(
      appNeeding('ALIAS', [Store, { provide: 'ALIAS', useExisting: Store }]),
    );
    expect(await outputOf(app)).toBe('store');
    expect(await app.get('ALIAS')).toBe(await app.get(Store));
  });
});

describe('token kinds', () => {
  it('find providers by class, string, symbol and InjectionToken', async () => {
    const SYMBOL = Symbol('symbol token');
    const TOKEN = new InjectionToken<string>('injection token');
    @Injectable()
    class ByClass {}
    @Tool({ name: 'tokens', description: 'Reads every kind of token' })
    class Tokens {
      constructor(
        readonly byClass: ByClass,
        @Inject('STRING') readonly byString: string,
        @Inject(SYMBOL) readonly bySymbol: string,
        @Inject(TOKEN) readonly byToken: string,
      ) {}
      execute(): string {
        return [this.byClass.constructor.name, this.byString, this.bySymbol, this.byToken].join();
      }
    }
    @Module({
      tools: [Tokens],
      providers: [
        ByClass,
        { provide: 'STRING', useValue: 'string' },
        { provide: SYMBOL, useValue: 'symbol' },
        { provide: TOKEN, useValue: 'token' },
      ],
    })
    class M {}
    const app = await create(M);
    expect(await outputOf(app, 'tokens')).toBe('ByClass,string,symbol,token');
    expect(await app.get(TOKEN)).toBe('token');
  });
});

describe("the app's tsyringe container", () => {
  it('resolves each app-scoped token the root module sees to the app instance', async () => {
    @Injectable()
    class Shared {}
    const TOKEN = new InjectionToken<string>('config');
    @Module({ providers: [Shared, { provide: TOKEN, useValue: 'config' }], exports: [Shared] })
    class Library {}
    @Module({ imports: [Library], providers: [{ provide: 'OWN', useValue: 1 }] })
    class Root {}
    const app = await create(Root);
    expect(app.container.resolve(Shared)).toBe(await app.get(Shared));
    expect(app.container.resolve('OWN')).toBe(1);
    // Library keeps TOKEN to itself: the root module does not see it.
    expect(app.container.isRegistered(TOKEN as never)).toBe(false);
  });

  it('is a child container of its own in every app', async () => {
    @Injectable()
    class Thing {}
    @Module({ providers: [Thing] })
    class M {}
    const first = await create(M);
    const second = await create(M);
    expect(first.container).not.toBe(second.container);
    expect(first.container.resolve(Thing)).not.toBe(second.container.resolve(Thing));
  });
});

describe('after close', () => {
  it("the app's container builds nothing more", async () => {
    @Injectable()
    class Thing {}
    @Module({ providers: [Thing] })
    class M {}
    const app = await ToolApp.create(M);
    await app.close();
    expect(() => app.container.resolve(Thing)).toThrow(
      expect.objectContaining({ code: 'CLOSED' }) as Error,
    );
  });
});
