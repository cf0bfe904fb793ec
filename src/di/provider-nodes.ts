import { type Constructor } from '../core';
import { type ModuleProblem } from './errors';
import { handleOptionsProblem } from './handles';
import { CallAuth, CallElicitor, CallRecorder, CallSession } from './facades';
import { type Provider } from './module';
import { constructorTokens, type ParameterToken } from './constructor-tokens';
import {
  declaredScope,
  isInjectableClass,
  isToken,
  type Scope,
  type Token,
  tokenName,
} from './tokens';
import { tsyringeScope } from './tsyringe-adapter';
import { type ModuleNode, type ProviderNode } from './graph-nodes';

// How a provider, a class or a built-in facade becomes a node of the graph.

const BUILTINS: ReadonlyMap<Token, ProviderNode> = new Map(
  [CallRecorder, CallElicitor, CallSession, CallAuth].map((cls): [Token, ProviderNode] => {
    const instance = new cls();
    return [
      cls,
      {
        module: undefined,
        token: cls,
        kind: 'builtin',
        label: cls.name,
        declaredScope: 'app',
        parameters: [],
        build: () => instance,
        key: Symbol(cls.name),
        deps: [],
      },
    ];
  }),
);

/**
 * The built-in facades every module sees (`CallRecorder`, `CallElicitor`, `CallSession`,
 * `CallAuth`).
 */
export function builtinFor(token: Token): ProviderNode | undefined {
  return BUILTINS.get(token);
}

export function describeEntry(entry: unknown): string {
  if (typeof entry === 'function') return entry.name || '<anonymous class>';
  if (entry === undefined) return 'undefined (a circular import of files?)';
  if (typeof entry === 'string') return JSON.stringify(entry);
  return typeof entry === 'object' && entry !== null ? 'an object' : typeof entry;
}

/**
 * A class's scope, if stated: by `useClass`'s `scope`, by `@Injectable({ scope })`, or by
 * how tsyringe's decorators registered the class (`@singleton()`, `@scoped(...)`).
 */
function statedClassScope(cls: Constructor, stated: Scope | undefined): Scope | undefined {
  return stated ?? declaredScope(cls) ?? tsyringeScope(cls);
}

/** A node that builds `cls` with its constructor's dependencies, in `module`. */
export function classNode(
  module: ModuleNode,
  token: Token,
  cls: Constructor,
  kind: 'class' | 'tool' | 'module',
  label: string,
  scope?: Scope,
): ProviderNode {
  // A module class is built once for the app, whatever its decorators say.
  const stated = kind === 'module' ? undefined : statedClassScope(cls, scope);
  return {
    module,
    token,
    kind,
    label,
    declaredScope: stated ?? 'app',
    scopeStated: stated !== undefined,
    parameters: constructorTokens(cls),
    build: (args) => Reflect.construct(cls, args) as unknown,
    key: Symbol(label),
    undecorated: kind === 'class' && !isInjectableClass(cls),
    deps: [],
  };
}

export function providerNode(
  module: ModuleNode,
  provider: Provider,
  i: number,
  problems: ModuleProblem[],
): ProviderNode | undefined {
  const where = `${module.name} providers[${i}]`;
  if (typeof provider === 'function') {
    return classNode(module, provider, provider, 'class', provider.name);
  }
  if (typeof provider !== 'object' || provider === null || !('provide' in provider)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${where} ${provider === undefined ? `is ${describeEntry(provider)}` : 'is not a provider'}; give a class, or { provide, useClass | useValue | useFactory | useExisting }`,
    });
    return undefined;
  }
  const token = provider.provide;
  if (!isToken(token)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${where} provides ${String(token)}, which is not a token; use a class, a string, a symbol or an InjectionToken`,
    });
    return undefined;
  }
  const name = tokenName(token);
  const handle = 'handle' in provider ? provider.handle : undefined;
  if (handle !== undefined) {
    const scope = 'scope' in provider ? provider.scope : undefined;
    const problem =
      scope === 'session'
        ? handleOptionsProblem(handle)
        : `handle needs scope: 'session' (a handle reaches a session's instances), got ${scope === undefined ? 'no scope' : `'${scope}'`}`;
    if (problem !== undefined) {
      problems.push({ code: 'INVALID_MODULE', message: `${where} (${name}): ${problem}` });
      return undefined;
    }
  }
  const withHandle = (node: ProviderNode): ProviderNode =>
    handle === undefined ? node : { ...node, handle };
  if ('useClass' in provider && typeof provider.useClass === 'function') {
    return withHandle(
      classNode(module, token, provider.useClass, 'class', provider.useClass.name, provider.scope),
    );
  }
  if ('useValue' in provider) {
    const value = provider.useValue;
    return {
      module,
      token,
      kind: 'value',
      label: `the value of ${name}`,
      declaredScope: 'app',
      parameters: [],
      build: () => value,
      key: Symbol(`the value of ${name}`),
      deps: [],
    };
  }
  if ('useFactory' in provider && typeof provider.useFactory === 'function') {
    const factory = provider.useFactory as (...deps: unknown[]) => unknown;
    return withHandle({
      module,
      token,
      kind: 'factory',
      label: `the factory of ${name}`,
      declaredScope: provider.scope ?? 'app',
      scopeStated: provider.scope !== undefined,
      parameters: (provider.inject ?? []).map((dep, index): ParameterToken =>
        dep === undefined
          ? { index, token: undefined, undefinedAt: 'inject' }
          : { index, token: isToken(dep) ? dep : undefined },
      ),
      build: (args) => factory(...args),
      key: Symbol(`the factory of ${name}`),
      deps: [],
    });
  }
  if ('useExisting' in provider && isToken(provider.useExisting)) {
    return {
      module,
      token,
      kind: 'alias',
      label: `the alias ${name}`,
      declaredScope: 'app',
      parameters: [{ index: 0, token: provider.useExisting }],
      build: (args) => args[0],
      key: Symbol(`the alias ${name}`),
      deps: [],
    };
  }
  problems.push({ code: 'INVALID_MODULE', message: `${where} (${name}) ${lacking(provider)}` });
  return undefined;
}

/** What is wrong with a provider object none of whose `use*` could be used. */
function lacking(provider: object): string {
  if ('useClass' in provider) {
    return `has useClass ${describeEntry(provider.useClass)}, which is not a class; give the class to build`;
  }
  if ('useFactory' in provider) {
    return `has useFactory ${describeEntry(provider.useFactory)}, which is not a function; give the function that makes the value`;
  }
  if ('useExisting' in provider) {
    return `has useExisting ${describeEntry(provider.useExisting)}, which is not a token; give the token it stands for`;
  }
  return 'has none of useClass, useValue, useFactory or useExisting; give one of them';
}
