/**
 * What agenttool relies on in tsyringe beyond its documented API, held here so that an
 * upgrade that changes it fails this file, by name, rather than an app at run time.
 * See src/di/tsyringe-adapter.ts.
 */
import 'reflect-metadata';
import {
  container as globalContainer,
  inject,
  injectable,
  injectAll,
  injectAllWithTransform,
  injectWithTransform,
  Lifecycle,
  scoped,
  singleton,
} from 'tsyringe';
import {
  isContainerScoped,
  registerClass,
  resolveIn,
  tsyringeParameters,
} from '../../src/di/tsyringe-adapter';

class Upper {
  transform(value: string): string {
    return value.toUpperCase();
  }
}

class Joined {
  transform(values: string[]): string {
    return values.join();
  }
}

describe("tsyringe's parameter decorators, as the adapter reads them", () => {
  it('finds the token of @inject, optional or not, by position', () => {
    @injectable()
    class Uses {
      constructor(
        @inject('A') readonly a: string,
        readonly plain: Upper,
        @inject('B', { isOptional: true }) readonly b: string,
      ) {}
    }
    expect([...tsyringeParameters(Uses)]).toEqual([
      [0, { token: 'A', optional: false, unsupported: undefined }],
      [2, { token: 'B', optional: true, unsupported: undefined }],
    ]);
  });

  it('tells @injectAll and the transforming decorators apart', () => {
    @injectable()
    class Uses {
      constructor(
        @injectAll('MANY') readonly many: string[],
        @injectWithTransform('ONE', Upper) readonly one: string,
        @injectAllWithTransform('ALL', Joined) readonly all: string,
      ) {}
    }
    expect([...tsyringeParameters(Uses)]).toEqual([
      [0, { token: 'MANY', optional: false, unsupported: '@injectAll' }],
      [1, { token: 'ONE', optional: false, unsupported: '@injectWithTransform' }],
      [2, { token: 'ALL', optional: false, unsupported: '@injectWithTransform' }],
    ]);
  });

  it('finds nothing on a class without them', () => {
    class Plain {}
    expect(tsyringeParameters(Plain).size).toBe(0);
  });
});

describe('container-scoped registrations, as the adapter detects them', () => {
  it('holds for @scoped(Lifecycle.ContainerScoped) only', () => {
    @scoped(Lifecycle.ContainerScoped)
    class PerContainer {}
    @scoped(Lifecycle.ResolutionScoped)
    class PerResolution {}
    @singleton()
    class Single {}
    @injectable()
    class Plain {}
    expect(isContainerScoped(PerContainer)).toBe(true);
    expect([PerResolution, Single, Plain].map(isContainerScoped)).toEqual([false, false, false]);
  });
});

describe('class registrations built from the resolving container', () => {
  it('build one instance per app container and per child, from what each holds', () => {
    const app = globalContainer.createChildContainer();
    const DEP = Symbol('dep');
    const SHARED = Symbol('shared');
    const PER_SESSION = Symbol('per session');
    app.register(DEP, { useValue: 'app value' });
    registerClass(app, SHARED, 'app', (resolve) => ({ dep: resolve(DEP) }));
    registerClass(app, PER_SESSION, 'session', (resolve) => ({ dep: resolve(DEP) }));
    const session = app.createChildContainer();
    session.register(DEP, { useValue: 'session value' });

    const shared = resolveIn(app, SHARED);
    expect(resolveIn(session, SHARED)).toBe(shared);
    expect(shared).toEqual({ dep: 'app value' });

    const inSession = resolveIn(session, PER_SESSION);
    expect(inSession).toEqual({ dep: 'session value' });
    expect(resolveIn(session, PER_SESSION)).toBe(inSession);
    expect(resolveIn(app.createChildContainer(), PER_SESSION)).not.toBe(inSession);
  });
});
