/**
 * What a circular import of files looks like to the modules: a class or a token that is
 * still `undefined` where a class was decorated or a module declared. Each is a
 * creation problem that says so, reported with the others, never a silent fallback.
 *
 * tsc emits a parameter's class as is (`cycle_1.Repo`, undefined while the cycle
 * loads); the tests set that metadata by hand, since Jest compiles file by file.
 */
import 'reflect-metadata';
import { Tool } from 'agenttool';
import { Inject, Injectable, Module, ModuleError, type Provider, ToolApp } from 'agenttool/di';
import { inject } from 'tsyringe';

/** What a token or class imported from a file still loading is. */
const NOT_YET_DEFINED = undefined as unknown as string;
const NOT_YET_A_CLASS = undefined as unknown as new () => object;

async function problems(module: new () => unknown): Promise<string[]> {
  const error = await ToolApp.create(module).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModuleError);
  return (error as ModuleError).problems.map((p) => `${p.code}: ${p.message}`);
}

describe('a circular import of files', () => {
  it('@Inject(undefined) on a class-typed parameter is an error, not the type injected', async () => {
    @Injectable()
    class Real {}
    @Tool({ name: 't', description: 'd' })
    class T {
      constructor(@Inject(NOT_YET_DEFINED) readonly real: Real) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T], providers: [Real] })
    class M {}
    expect(await problems(M)).toEqual([
      "MISSING_PROVIDER: M: T's constructor parameter #0 has @Inject(undefined): the token was undefined where T was decorated (a circular import of files?); define the token where nothing in the cycle is imported first, e.g. in a file of its own",
    ]);
  });

  it("tsyringe's @inject(undefined) says the same", async () => {
    @Tool({ name: 't', description: 'd' })
    class T {
      constructor(@inject(NOT_YET_DEFINED) readonly value: unknown) {}
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [T] })
    class M {}
    expect(await problems(M)).toEqual([
      "MISSING_PROVIDER: M: T's constructor parameter #0 has @Inject(undefined): the token was undefined where T was decorated (a circular import of files?); define the token where nothing in the cycle is imported first, e.g. in a file of its own",
    ]);
  });

  it('a parameter whose class was undefined when its class was decorated', async () => {
    @Injectable()
    class Repo {}
    @Injectable()
    class Service {
      constructor(
        readonly repo: Repo,
        readonly other: Repo,
      ) {}
    }
    // What tsc emits when Repo's file is still loading: `[repo_1.Repo, repo_1.Repo]`.
    Reflect.defineMetadata('design:paramtypes', [Repo, undefined], Service);
    @Module({ providers: [Repo, Service] })
    class M {}
    expect(await problems(M)).toEqual([
      "MISSING_PROVIDER: M: Service's constructor parameter #1 has the type undefined: its class was undefined where Service was decorated (a circular import of files?); break the cycle of imports between the files, or add @Inject(token) with a token defined outside it",
    ]);
  });

  it('a factory inject, a useClass, a useExisting and a provider that are undefined, all at once', async () => {
    @Module({
      providers: [
        { provide: 'A', useClass: NOT_YET_A_CLASS },
        { provide: 'B', useExisting: NOT_YET_DEFINED },
        undefined as unknown as Provider,
        { provide: 'C', useFactory: (x: unknown) => x, inject: [NOT_YET_DEFINED] },
      ],
    })
    class M {}
    expect(await problems(M)).toEqual([
      'INVALID_MODULE: M providers[0] ("A") has useClass undefined (a circular import of files?), which is not a class; give the class to build',
      'INVALID_MODULE: M providers[1] ("B") has useExisting undefined (a circular import of files?), which is not a token; give the token it stands for',
      'INVALID_MODULE: M providers[2] is undefined (a circular import of files?); give a class, or { provide, useClass | useValue | useFactory | useExisting }',
      'MISSING_PROVIDER: M: the factory of "C" (inject #0) is undefined: the token was undefined where M was declared (a circular import of files?); define the token where nothing in the cycle is imported first, e.g. in a file of its own',
    ]);
  });
});
