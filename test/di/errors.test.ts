/**
 * What `ToolApp.create` and a running app report when something fails, and with which
 * code: what is wrong with the modules is found before anything is built, all of it
 * at once; what fails while building says what failed.
 */
import 'reflect-metadata';
import { Param, Tool } from 'agenttool';
import { Inject, Injectable, Module, ModuleError, ToolApp } from 'agenttool/di';
import { injectAll, injectWithTransform } from 'tsyringe';
import { testSession } from '../support/session';

async function failure(module: new () => unknown): Promise<Error & { code?: string }> {
  return (await ToolApp.create(module).catch((e: unknown) => e)) as Error & { code?: string };
}

describe('building fails with PROVIDER_FAILED', () => {
  it('when a constructor throws, with the cause kept', async () => {
    const boom = new Error('no disk');
    @Injectable()
    class Disk {
      constructor() {
        throw boom;
      }
    }
    @Module({ providers: [Disk] })
    class M {}
    const error = await failure(M);
    expect(error.code).toBe('PROVIDER_FAILED');
    expect(error.message).toBe('M: creating Disk failed: no disk');
    expect(error.cause).toBe(boom);
  });

  it('when a factory rejects, once the rest is closed', async () => {
    const closed: string[] = [];
    @Injectable()
    class Opened {
      close(): void {
        closed.push('opened');
      }
    }
    @Module({
      providers: [
        Opened,
        {
          provide: 'LATER',
          useFactory: () => Promise.reject(new Error('refused')),
          inject: [Opened],
        },
      ],
    })
    class M {}
    const error = await failure(M);
    expect([error.code, error.message]).toEqual([
      'PROVIDER_FAILED',
      'M: creating the factory of "LATER" failed: refused',
    ]);
    expect(closed).toEqual(['opened']);
  });

  it("in a session: the call fails with it, and the session's other instances close", async () => {
    const closed: string[] = [];
    @Injectable({ scope: 'session' })
    class Good {
      close(): void {
        closed.push('good');
      }
    }
    @Injectable({ scope: 'session' })
    class Bad {
      constructor(readonly good: Good) {
        throw new Error('quota exceeded');
      }
    }
    @Tool({ name: 'use', description: 'd' })
    class Use {
      constructor(readonly bad: Bad) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [Use], providers: [Good, Bad] })
    class M {}
    const app = await ToolApp.create(M);
    const session = testSession('a');
    const [outcome] = await app.results([app.job('use')], { session });
    expect(outcome?.error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'M: creating Bad failed: quota exceeded',
    });
    await session.end();
    expect(closed).toEqual(['good']);
    await app.close();
  });
});

describe('a session build that failed', () => {
  it('is tried again on the next call of the session, not kept as failed', async () => {
    let calls = 0;
    @Tool({ name: 'use', description: 'd' })
    class Use {
      constructor(@Inject('CONNECTION') readonly connection: { readonly n: number }) {}
      execute(): string {
        return `connection ${this.connection.n}`;
      }
    }
    @Module({
      tools: [Use],
      providers: [
        {
          provide: 'CONNECTION',
          scope: 'session',
          useFactory: () => {
            calls += 1;
            if (calls === 1) throw new Error('network down');
            return { n: calls };
          },
        },
      ],
    })
    class M {}
    const app = await ToolApp.create(M);
    const session = testSession('a');
    const [first] = await app.results([app.job('use')], { session });
    expect(first?.error).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'M: creating the factory of "CONNECTION" failed: network down',
    });
    const [second] = await app.results([app.job('use')], { session });
    expect(second?.result?.output).toBe('connection 2');
    const [third] = await app.results([app.job('use')], { session });
    expect(third?.result?.output).toBe('connection 2');
    expect(calls).toBe(2);
    await session.end();
    await app.close();
  });
});

describe('the modules are checked before anything is built', () => {
  it('reports a cycle as CIRCULAR_DEPENDENCY', async () => {
    @Module({
      providers: [
        { provide: 'A', useFactory: (b: unknown) => b, inject: ['B'] },
        { provide: 'B', useFactory: (a: unknown) => a, inject: ['A'] },
      ],
    })
    class Cyclic {}
    const error = await failure(Cyclic);
    expect(error).toBeInstanceOf(ModuleError);
    expect(error.code).toBe('CIRCULAR_DEPENDENCY');
  });

  it('reports a tool class that cannot be read as INVALID_DECORATOR, naming module, class and field', async () => {
    let built = 0;
    class Args {
      @Param('a list, whose item type reflection cannot see') items!: string[];
    }
    @Tool({ name: 'broken', description: 'd', args: Args })
    class Broken {
      constructor() {
        built++;
      }
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [Broken] })
    class M {}
    const error = await failure(M);
    expect(error.code).toBe('INVALID_DECORATOR');
    expect((error as ModuleError).problems.map((p) => p.message)).toEqual([
      "M: Args.items: an array needs its item type, which reflection cannot see; say { items: 'string' } (a type name, a class, or () => SomeClass)",
    ]);
    expect(built).toBe(0);
  });

  it('reports two tools with one name as INVALID_TOOL_SET, before building either', async () => {
    let built = 0;
    const named = () => {
      @Tool({ name: 'same', description: 'd' })
      class Same {
        constructor() {
          built++;
        }
        execute(): string {
          return '';
        }
      }
      return Same;
    };
    @Module({ tools: [named(), named()] })
    class M {}
    const error = await failure(M);
    expect([error.code, error.message]).toEqual([
      'INVALID_TOOL_SET',
      'ToolApp.create(M): tool "same": duplicate name',
    ]);
    expect(built).toBe(0);
  });

  it('refuses what tsyringe can inject but a module cannot', async () => {
    class Upper {
      transform(value: string): string {
        return value.toUpperCase();
      }
    }
    @Injectable()
    class Plugins {
      constructor(
        @injectAll('PLUGIN') readonly all: string[],
        @injectWithTransform('NAME', Upper) readonly name: string,
      ) {}
    }
    @Module({
      providers: [
        Plugins,
        { provide: 'PLUGIN', useValue: 'p' },
        { provide: 'NAME', useValue: 'n' },
      ],
    })
    class M {}
    const error = (await failure(M)) as ModuleError;
    expect(error.problems.map((p) => p.message)).toEqual([
      "M: Plugins's constructor parameter #0 uses tsyringe's @injectAll, which a module cannot satisfy (one provider per token, untransformed); inject one provider with @inject(token) or @Inject(token)",
      "M: Plugins's constructor parameter #1 uses tsyringe's @injectWithTransform, which a module cannot satisfy (one provider per token, untransformed); inject one provider with @inject(token) or @Inject(token)",
    ]);
  });

  it('names the module, the class and the position of a parameter nothing names', async () => {
    interface Clock {
      now(): number;
    }
    @Injectable()
    class Timer {
      constructor(
        @Inject('START') readonly start: number,
        readonly clock: Clock,
      ) {}
    }
    @Module({ providers: [Timer, { provide: 'START', useValue: 0 }] })
    class M {}
    const error = (await failure(M)) as ModuleError;
    expect([error.code, error.message]).toEqual([
      'MISSING_PROVIDER',
      "ToolApp.create(M): M: Timer's constructor parameter #1 has no injection token (its type is an interface, a union or a primitive); add @Inject(token) to the parameter",
    ]);
  });
});

describe('options', () => {
  it.each([
    [-1, 'got -1'],
    [1.5, 'got 1.5'],
    [Number.NaN, 'got NaN'],
    ['3', 'got "3"'],
  ])('refuses maxQueuedCalls %p, saying what it got', async (value, got) => {
    @Module({})
    class M {}
    await expect(ToolApp.create(M, { maxQueuedCalls: value as number })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: `ToolApp.create: maxQueuedCalls must be a whole number of calls, 0 or more, ${got}`,
    });
  });
});
