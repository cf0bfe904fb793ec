/**
 * A bounded start: `ToolApp.create(root, { signal, timeoutMs })` fails when an async
 * factory or a starting hook does not settle in time, or when the signal aborts, naming
 * what it waited for and how long, and closes what was already built. The timeouts here
 * are short only to bound factories that never settle; nothing asserts a duration.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Inject, Injectable, Module, ToolApp } from 'agenttool/di';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** An app whose CONFIG factory (in ConfigModule) never settles, after a closable Pool is built. */
function hangingApp(events: string[]) {
  @Injectable()
  class Pool {
    onModuleInit(): void {
      events.push('init Pool');
    }
    close(): void {
      events.push('close Pool');
    }
  }
  @Module({
    providers: [Pool, { provide: 'CONFIG', useFactory: (_pool: Pool) => never(), inject: [Pool] }],
    exports: ['CONFIG'],
  })
  class ConfigModule {}
  @Tool({ name: 't', description: 'd' })
  class T {
    constructor(@Inject('CONFIG') readonly config: object) {}
    execute(): string {
      return '';
    }
  }
  @Module({ imports: [ConfigModule], tools: [T] })
  class AppModule {}
  return AppModule;
}

describe('a start with timeoutMs', () => {
  it('fails with TIMEOUT naming the factory that did not settle and how long it waited, and closes what was built', async () => {
    const events: string[] = [];
    const error = (await ToolApp.create(hangingApp(events), { timeoutMs: 20 }).catch(
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(
      /^ToolApp\.create\(AppModule\): the start did not finish within timeoutMs \(20 ms\): ConfigModule: the factory of "CONFIG" had not settled after \d+ ms; what was built is closed\. Make the factory or hook settle, or give the start more time$/,
    );
    // Pool was built, never started (the hooks come once everything is built), and closed.
    expect(events).toEqual(['close Pool']);
  });

  it('names a starting hook that does not settle, and closes what started with the closing hooks', async () => {
    const events: string[] = [];
    @Injectable()
    class Fine {
      onModuleInit(): void {
        events.push('init Fine');
      }
      onModuleDestroy(): void {
        events.push('destroy Fine');
      }
      close(): void {
        events.push('close Fine');
      }
    }
    @Injectable()
    class Stuck {
      constructor(readonly fine: Fine) {}
      onModuleInit(): Promise<void> {
        events.push('init Stuck');
        return never();
      }
      onModuleDestroy(): void {
        events.push('destroy Stuck');
      }
      close(): void {
        events.push('close Stuck');
      }
    }
    @Module({ providers: [Fine, Stuck] })
    class M {}
    const error = (await ToolApp.create(M, { timeoutMs: 20 }).catch((e: unknown) => e)) as Error & {
      code?: string;
    };
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(/: M: Stuck\.onModuleInit\(\) had not settled after \d+ ms; /);
    expect(events).toEqual([
      'init Fine',
      'init Stuck',
      'destroy Fine',
      'close Stuck',
      'close Fine',
    ]);
  });

  it('does not bound a start that finishes in time', async () => {
    @Module({ providers: [{ provide: 'N', useFactory: async () => 1 }] })
    class M {}
    const app = await ToolApp.create(M, { timeoutMs: 60_000 });
    expect(await app.get('N')).toBe(1);
    await app.close();
  });

  it('takes a bound past what a timer holds (2^31 ms) as about 24.8 days, not as none', async () => {
    @Module({
      providers: [
        { provide: 'N', useFactory: () => new Promise((resolve) => setTimeout(resolve, 50, 1)) },
      ],
    })
    class M {}
    const app = await ToolApp.create(M, { timeoutMs: 2 ** 31 });
    expect(await app.get('N')).toBe(1);
    await app.close();
  });

  it('refuses a timeout that is not a positive number', async () => {
    @Module({})
    class M {}
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(ToolApp.create(M, { timeoutMs })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: `ToolApp.create(M): timeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`,
      });
    }
  });
});

describe('a start with a signal', () => {
  it('fails with CANCELLED when the signal aborts, naming what was under way, and closes what was built', async () => {
    const events: string[] = [];
    const controller = new AbortController();
    const starting = ToolApp.create(hangingApp(events), { signal: controller.signal });
    setImmediate(() => controller.abort(new Error('shutting down')));
    const error = (await starting.catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toMatch(
      /^ToolApp\.create\(AppModule\): the start was aborted \(shutting down\): ConfigModule: the factory of "CONFIG" had not settled after \d+ ms; what was built is closed$/,
    );
    expect((error.cause as Error).message).toBe('shutting down');
    expect(events).toEqual(['close Pool']);
  });

  it('builds nothing when the signal has aborted already', async () => {
    const events: string[] = [];
    const error = (await ToolApp.create(hangingApp(events), {
      signal: AbortSignal.abort(new Error('too late')),
    }).catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toBe(
      'ToolApp.create(AppModule): the start was aborted (too late) before it began; nothing was built',
    );
    expect(events).toEqual([]);
  });
});
