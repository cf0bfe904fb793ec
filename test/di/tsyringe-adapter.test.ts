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
  registry,
  scoped,
  singleton,
} from 'tsyringe';
import {
  registerClass,
  resolveIn,
  tsyringeParameters,
  tsyringeScope,
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

describe("the scope tsyringe's decorators registered a class with, as the adapter reads it", () => {
  it('reads each lifecycle, and nothing for a class that is not registered under itself', () => {
    @singleton()
    class Single {}
    @scoped(Lifecycle.ContainerScoped)
    class PerContainer {}
    @scoped(Lifecycle.ResolutionScoped)
    class PerResolution {}
    @registry([
      { token: PerInjection, useClass: PerInjection, options: { lifecycle: Lifecycle.Transient } },
    ])
    class PerInjection {}
    @injectable()
    class Plain {}
    class Elsewhere {}
    @scoped(Lifecycle.ContainerScoped, 'ELSEWHERE')
    class UnderAnotherToken extends Elsewhere {}
    expect([Single, PerContainer, PerResolution, PerInjection].map(tsyringeScope)).toEqual([
      'app',
      'session',
      'resolution',
      'transient',
    ]);
    expect([Plain, Elsewhere, UnderAnotherToken].map(tsyringeScope)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('class registrations built from what the app resolved', () => {
  it('build one instance per app container and per child, or one per resolve when transient', () => {
    const app = globalContainer.createChildContainer();
    const SHARED = Symbol('shared');
    const PER_SESSION = Symbol('per session');
    const TRANSIENT = Symbol('transient');
    registerClass(app, SHARED, 'app', ([dep]) => ({ dep }));
    registerClass(app, PER_SESSION, 'session', ([dep]) => ({ dep }));
    registerClass(app, TRANSIENT, 'transient', ([dep]) => ({ dep }));
    const session = app.createChildContainer();

    const shared = resolveIn(app, SHARED, ['app value']);
    expect(resolveIn(session, SHARED, ['ignored'])).toBe(shared);
    expect(shared).toEqual({ dep: 'app value' });

    const inSession = resolveIn(session, PER_SESSION, ['session value']);
    expect(inSession).toEqual({ dep: 'session value' });
    expect(resolveIn(session, PER_SESSION)).toBe(inSession);
    expect(resolveIn(app.createChildContainer(), PER_SESSION, ['other'])).not.toBe(inSession);

    const first = resolveIn(session, TRANSIENT, ['one']);
    expect([first, resolveIn(session, TRANSIENT, ['two'])]).toEqual([
      { dep: 'one' },
      { dep: 'two' },
    ]);
  });

  it('refuse to build outside resolveIn, as after the app closed', () => {
    const app = globalContainer.createChildContainer();
    const KEY = Symbol('key');
    registerClass(app, KEY, 'app', () => ({}));
    expect(() => app.resolve(KEY)).toThrow(
      'agenttool/di: the app is closed; it builds nothing more',
    );
  });
});
