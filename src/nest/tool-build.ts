import {
  type AccessRequest,
  AgentToolError,
  type Constructor,
  errorMessage,
  type Interceptor,
  type InterceptorLike,
  type ProviderResolver,
  type ToolBuildOptions,
  type ToolGuard,
  withResolver,
} from 'agenttool';
import { type CanActivate, type GuardLike, type ModuleDescription, tokenName } from 'agenttool/di';
import { type ModuleRef } from '@nestjs/core';

/**
 * How the tools of `module` are built: the guards of the modules that import it, then
 * its own (guard classes as NestJS built them in the module that lists them), and its
 * tools' `@Guard` classes from itself; `refOf` gives a module's ModuleRef (`what` names
 * who asks, for the error when the module was not built).
 */
export function toolBuildOptions(
  module: ModuleDescription,
  refOf: (owner: Constructor, what: string) => ModuleRef,
): ToolBuildOptions {
  const instance = <T>(owner: Constructor, cls: Constructor<T>, kind: string): T =>
    refOf(owner, `${kind} ${cls.name}`).get(cls, { strict: true });
  const guards = module.toolGuards.map(({ guard, module: owner }): ToolGuard => {
    const target = isGuardClass(guard) ? instance(owner, guard, 'guard') : guard;
    if (typeof target === 'function') return target;
    return (request: AccessRequest) => target.canActivate(request);
  });
  // Each module's interceptors find providers through that module's ModuleRef.
  const interceptors = module.toolInterceptors.map(({ interceptor, module: owner }) => {
    const target = isInterceptorClass(interceptor)
      ? instance(owner, interceptor, 'interceptor')
      : interceptor;
    return withResolver(
      target,
      providerResolver(() => refOf(owner, 'an interceptor')),
    );
  });
  return {
    guards,
    resolveGuard: (cls) => instance(module.module, cls, 'guard'),
    interceptors,
    resolveInterceptor: (cls) => instance(module.module, cls, 'interceptor'),
    resolveProvider: providerResolver(() => refOf(module.module, 'an interceptor')),
  };
}

/**
 * `context.resolve` through a NestJS ModuleRef: the provider anywhere in the NestJS app
 * (`get` with `strict: false`), as NestJS's container sees it; one NestJS builds per
 * request cannot be had this way.
 */
export function providerResolver(refOf: () => ModuleRef): ProviderResolver {
  return (token, _ctx, options) => {
    try {
      return Promise.resolve(refOf().get(token as string, { strict: false }));
    } catch (error) {
      if (options.optional === true) return Promise.resolve(undefined);
      return Promise.reject(
        new AgentToolError(
          'MISSING_PROVIDER',
          `agenttool/nest: an interceptor asked for ${tokenName(token)}, which NestJS could not give: ${errorMessage(error)}`,
          { cause: error },
        ),
      );
    }
  };
}

/** True for an interceptor class: a class whose instances have `intercept`. */
function isInterceptorClass(value: InterceptorLike): value is Constructor<Interceptor> {
  return (
    typeof value === 'function' &&
    typeof (value.prototype as Partial<Interceptor> | undefined)?.intercept === 'function'
  );
}

/** True for a guard class: a class whose instances have `canActivate`. */
function isGuardClass(guard: GuardLike): guard is Constructor<CanActivate> {
  return (
    typeof guard === 'function' &&
    typeof (guard.prototype as Partial<CanActivate> | undefined)?.canActivate === 'function'
  );
}
