import { type ModuleProblem } from './errors';
import { CallElicitor, CallRecorder, CallSession } from './facades';
import { isModuleClass, moduleOptionsOf, type ModuleOptions, type Provider } from './module';
import {
  type Constructor,
  constructorTokens,
  declaredScope,
  isToken,
  type ParameterToken,
  type Scope,
  type Token,
  tokenName,
} from './tokens';

/** A module of the app, once: its own providers and what it imports. */
export interface ModuleNode {
  readonly cls: Constructor;
  readonly name: string;
  readonly options: Required<ModuleOptions>;
  readonly imports: ModuleNode[];
  /** Own providers by token; a later entry for the same token replaces an earlier one. */
  readonly own: Map<Token, ProviderNode>;
  readonly tools: ProviderNode[];
}

export type ProviderKind = 'class' | 'value' | 'factory' | 'alias' | 'builtin' | 'tool';

/** One thing the app can build: a provider, a tool class, or a built-in facade. */
export interface ProviderNode {
  readonly module: ModuleNode | undefined;
  readonly token: Token;
  readonly kind: ProviderKind;
  /** What errors call it: `ReadFileTool` or `the factory of "CONFIG"`. */
  readonly label: string;
  readonly declaredScope: Scope;
  readonly parameters: readonly ParameterToken[];
  /** Builds the instance from the resolved parameters, in order. */
  readonly build: (args: unknown[]) => unknown;
  /** The nodes the parameters resolve to (same order); filled by {@link linkGraph}. */
  deps: ProviderNode[];
}

const BUILTINS: ReadonlyMap<Token, ProviderNode> = new Map(
  [CallRecorder, CallElicitor, CallSession].map((cls): [Token, ProviderNode] => {
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
        deps: [],
      },
    ];
  }),
);

/** Everything found in the modules reachable from the root, and the problems on the way. */
export interface AppGraph {
  readonly root: ModuleNode;
  readonly modules: ModuleNode[];
  readonly problems: ModuleProblem[];
}

/**
 * Reads the module tree from `rootCls`: one node per module class however often it is
 * imported. Tool classes are checked with `isToolClass`.
 */
export function readModules(
  rootCls: Constructor,
  isToolClass: (cls: unknown) => boolean,
): AppGraph {
  const problems: ModuleProblem[] = [];
  const nodes = new Map<Constructor, ModuleNode>();
  const modules: ModuleNode[] = [];

  const visit = (cls: Constructor): ModuleNode => {
    const known = nodes.get(cls);
    if (known !== undefined) return known;
    const options = moduleOptionsOf(cls)!;
    const node: ModuleNode = {
      cls,
      name: cls.name,
      options,
      imports: [],
      own: new Map(),
      tools: [],
    };
    nodes.set(cls, node);
    modules.push(node);
    options.imports.forEach((imported, i) => {
      if (!isModuleClass(imported)) {
        problems.push({
          code: 'INVALID_MODULE',
          message: `${node.name} imports ${describeEntry(imported)} at imports[${i}], which has no @Module decorator; decorate it with @Module({ ... }) or remove it from the imports`,
        });
        return;
      }
      node.imports.push(visit(imported));
    });
    options.providers.forEach((provider, i) => {
      const built = providerNode(node, provider, i, problems);
      if (built !== undefined) node.own.set(built.token, built);
    });
    options.tools.forEach((tool, i) => {
      if (typeof tool !== 'function' || !isToolClass(tool)) {
        problems.push({
          code: 'INVALID_DECORATOR',
          message: `${node.name} lists ${describeEntry(tool)} at tools[${i}], but it has no @Tool decorator; add @Tool({ name, description }) to the class`,
        });
        return;
      }
      node.tools.push(classNode(node, tool, tool, 'tool', tool.name));
    });
    return node;
  };

  if (!isModuleClass(rootCls)) {
    problems.push({
      code: 'INVALID_MODULE',
      message: `${describeEntry(rootCls)} has no @Module decorator; decorate the root class with @Module({ tools, providers, imports })`,
    });
    const empty: ModuleNode = {
      cls: rootCls,
      name: describeEntry(rootCls),
      options: { imports: [], tools: [], providers: [], exports: [] },
      imports: [],
      own: new Map(),
      tools: [],
    };
    return { root: empty, modules: [], problems };
  }
  const root = visit(rootCls);
  return { root, modules, problems };
}

function describeEntry(entry: unknown): string {
  if (typeof entry === 'function') return entry.name || '<anonymous class>';
  if (entry === undefined) return 'undefined (a circular import of files?)';
  if (typeof entry === 'string') return JSON.stringify(entry);
  return typeof entry === 'object' && entry !== null ? 'an object' : typeof entry;
}

function classNode(
  module: ModuleNode,
  token: Token,
  cls: Constructor,
  kind: 'class' | 'tool',
  label: string,
  scope?: Scope,
): ProviderNode {
  return {
    module,
    token,
    kind,
    label,
    declaredScope: scope ?? declaredScope(cls) ?? 'app',
    parameters: constructorTokens(cls),
    build: (args) => new cls(...args),
    deps: [],
  };
}

function providerNode(
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
      message: `${where} is not a provider; give a class, or { provide, useClass | useValue | useFactory | useExisting }`,
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
  if ('useClass' in provider && typeof provider.useClass === 'function') {
    return classNode(
      module,
      token,
      provider.useClass,
      'class',
      provider.useClass.name,
      provider.scope,
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
      deps: [],
    };
  }
  if ('useFactory' in provider && typeof provider.useFactory === 'function') {
    const factory = provider.useFactory;
    return {
      module,
      token,
      kind: 'factory',
      label: `the factory of ${name}`,
      declaredScope: provider.scope ?? 'app',
      parameters: (provider.inject ?? []).map((dep, index) => ({
        index,
        token: isToken(dep) ? dep : undefined,
      })),
      build: (args) => factory(...args),
      deps: [],
    };
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
      deps: [],
    };
  }
  problems.push({
    code: 'INVALID_MODULE',
    message: `${where} (${name}) has none of useClass, useValue, useFactory or useExisting; give one of them`,
  });
  return undefined;
}

type Lookup = { node: ProviderNode } | { hidden: ModuleNode } | undefined;

/** What `token` resolves to inside `module`: its own provider, an import's export, a built-in. */
function lookup(module: ModuleNode, token: Token): Lookup {
  const own = module.own.get(token);
  if (own !== undefined) return { node: own };
  for (const imported of module.imports) {
    const found = exported(imported, token, new Set());
    if (found !== undefined) return { node: found };
  }
  const builtin = BUILTINS.get(token);
  if (builtin !== undefined) return { node: builtin };
  for (const imported of module.imports) {
    if (imported.own.has(token)) return { hidden: imported };
  }
  return undefined;
}

/** The provider `module` exports under `token`, directly or by re-exporting an import. */
function exported(
  module: ModuleNode,
  token: Token,
  seen: Set<ModuleNode>,
): ProviderNode | undefined {
  if (seen.has(module)) return undefined;
  seen.add(module);
  for (const entry of module.options.exports) {
    if (entry === token) {
      const own = module.own.get(token);
      if (own !== undefined) return own;
      for (const imported of module.imports) {
        const found = exported(imported, token, seen);
        if (found !== undefined) return found;
      }
    }
    const reexported = module.imports.find((m) => m.cls === entry);
    if (reexported !== undefined) {
      const found = exported(reexported, token, seen);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Resolves every parameter of every provider and tool to a node, and reports what
 * cannot be: a parameter nothing names, a token nobody provides, a token an import
 * keeps private, an export of something the module does not have, and cycles.
 */
export function linkGraph(graph: AppGraph): void {
  const { problems } = graph;
  for (const module of graph.modules) {
    for (const node of [...module.own.values(), ...module.tools]) {
      node.deps = [];
      for (const parameter of node.parameters) {
        const where = `${module.name}: ${node.label}${node.kind === 'factory' ? ' (inject' : "'s constructor parameter"} #${parameter.index}${node.kind === 'factory' ? ')' : ''}`;
        if (parameter.token === undefined) {
          problems.push({
            code: 'MISSING_PROVIDER',
            message:
              parameter.typesMissing === true
                ? `${where} has no injection token: TypeScript emitted no constructor parameter types for ${node.label}; compile with "emitDecoratorMetadata": true and decorate the class (@Tool, @Injectable()), or add @Inject(token) to the parameter`
                : `${where} has no injection token (its type is an interface, a union or a primitive); add @Inject(token) to the parameter`,
          });
          continue;
        }
        const found = lookup(module, parameter.token);
        const name = tokenName(parameter.token);
        if (found === undefined) {
          problems.push({
            code: 'MISSING_PROVIDER',
            message: `${where} needs ${name}, but no provider of it is visible in ${module.name}; add a provider of ${name} to ${module.name}'s providers, or import a module that exports it`,
          });
        } else if ('hidden' in found) {
          problems.push({
            code: 'MISSING_PROVIDER',
            message: `${where} needs ${name}, which ${found.hidden.name} provides but does not export; add ${name} to ${found.hidden.name}'s exports`,
          });
        } else {
          node.deps.push(found.node);
        }
      }
    }
    module.options.exports.forEach((entry, i) => {
      if (module.imports.some((m) => m.cls === entry)) return;
      if (!isToken(entry)) {
        problems.push({
          code: 'INVALID_MODULE',
          message: `${module.name} exports[${i}] is not a token or an imported module`,
        });
        return;
      }
      if (module.own.has(entry) || module.imports.some((m) => exported(m, entry, new Set())))
        return;
      problems.push({
        code: 'INVALID_MODULE',
        message: `${module.name} exports ${tokenName(entry)}, but neither provides it nor imports a module that exports it; add it to ${module.name}'s providers or remove it from the exports`,
      });
    });
  }
  findCycles(graph);
}

function findCycles(graph: AppGraph): void {
  const done = new Set<ProviderNode>();
  const path: ProviderNode[] = [];
  const reported = new Set<string>();
  const visit = (node: ProviderNode) => {
    if (done.has(node)) return;
    const at = path.indexOf(node);
    if (at >= 0) {
      const cycle = [...path.slice(at), node].map((n) => n.label).join(' -> ');
      if (!reported.has(cycle)) {
        reported.add(cycle);
        graph.problems.push({
          code: 'CIRCULAR_DEPENDENCY',
          message: `circular dependency: ${cycle} (in ${node.module?.name ?? 'the app'}); break the cycle, e.g. have one side take a factory or look the other up when it is first used`,
        });
      }
      return;
    }
    path.push(node);
    for (const dep of node.deps) visit(dep);
    path.pop();
    done.add(node);
  };
  for (const module of graph.modules) {
    for (const node of [...module.own.values(), ...module.tools]) visit(node);
  }
}

/** The scope a node effectively has: `session` when it or anything it needs is session-scoped. */
export function effectiveScopes(graph: AppGraph): Map<ProviderNode, Scope> {
  const scopes = new Map<ProviderNode, Scope>();
  const scopeOf = (node: ProviderNode): Scope => {
    const known = scopes.get(node);
    if (known !== undefined) return known;
    scopes.set(node, node.declaredScope);
    const scope: Scope =
      node.declaredScope === 'session' || node.deps.some((d) => scopeOf(d) === 'session')
        ? 'session'
        : 'app';
    scopes.set(node, scope);
    return scope;
  };
  for (const module of graph.modules) {
    for (const node of [...module.own.values(), ...module.tools]) scopeOf(node);
  }
  return scopes;
}
