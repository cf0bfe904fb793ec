import { type ModuleProblem } from './errors';
import { type AppGraph, builtinFor, type ModuleNode, type ProviderNode } from './graph';
import { type ParameterToken } from './constructor-tokens';
import { isToken, type Token, tokenName } from './tokens';

type Lookup = { node: ProviderNode } | { hidden: ModuleNode } | undefined;

/** What `token` resolves to inside `module`: its own provider, an import's export, a built-in. */
function lookup(module: ModuleNode, token: Token): Lookup {
  const own = module.own.get(token);
  if (own !== undefined) return { node: own };
  for (const imported of module.imports) {
    const found = exported(imported, token, new Set());
    if (found !== undefined) return { node: found };
  }
  const builtin = builtinFor(token);
  if (builtin !== undefined) return { node: builtin };
  for (const imported of module.imports) {
    if (imported.own.has(token)) return { hidden: imported };
  }
  return undefined;
}

/** The provider `module` exports under `token`, directly or by re-exporting an import. */
export function exported(
  module: ModuleNode,
  token: Token,
  seen: Set<ModuleNode> = new Set(),
): ProviderNode | undefined {
  return exportPath(module, token, seen)?.at(-1)?.own.get(token);
}

/**
 * The modules `token` comes through when `module` exports it: `module` first, each
 * module it re-exports it from (by name, or by re-exporting the module), the module
 * that provides it last; undefined when `module` does not export it.
 */
function exportPath(
  module: ModuleNode,
  token: Token,
  seen: Set<ModuleNode>,
): ModuleNode[] | undefined {
  if (seen.has(module)) return undefined;
  seen.add(module);
  for (const entry of module.options.exports) {
    if (entry === token) {
      if (module.own.has(token)) return [module];
      for (const imported of module.imports) {
        const found = exportPath(imported, token, seen);
        if (found !== undefined) return [module, ...found];
      }
    }
    const reexported = module.imports.find((m) => m.cls === entry);
    if (reexported !== undefined) {
      const found = exportPath(reexported, token, seen);
      if (found !== undefined) return [module, ...found];
    }
  }
  return undefined;
}

/**
 * The modules through which `module` sees `token`: empty when it provides it itself
 * (or it is a built-in), else from the import it comes from to the module that
 * provides it.
 */
export function importPath(module: ModuleNode, token: Token): ModuleNode[] {
  if (module.own.has(token)) return [];
  for (const imported of module.imports) {
    const found = exportPath(imported, token, new Set());
    if (found !== undefined) return found;
  }
  return [];
}

/** The provider `module` sees under `token` (its own or an import's export), if any. */
export function visibleIn(module: ModuleNode, token: Token): ProviderNode | undefined {
  const found = lookup(module, token);
  return found !== undefined && 'node' in found ? found.node : undefined;
}

/**
 * A module's nodes in the order NestJS lists its instances for the hooks (controllers,
 * then injectables, then providers): the guards and interceptors it builds for itself
 * (Nest's injectables), then its providers, then the tools it does not also provide (as a Nest
 * module listing `providers: [...providers, ...tools]`), then the module class.
 */
export function moduleNodes(module: ModuleNode): ProviderNode[] {
  const nodes = [
    ...[...module.guards.values()].filter((node) => !module.own.has(node.token)),
    ...[...module.interceptors.values()].filter(
      (node) => !module.own.has(node.token) && !module.guards.has(node.token as never),
    ),
    ...module.own.values(),
    ...module.tools.filter((node) => !module.own.has(node.token)),
    ...module.prompts.filter((node) => !module.own.has(node.token)),
    ...module.resources.filter((node) => !module.own.has(node.token)),
  ];
  return module.self === undefined ? nodes : [...nodes, module.self];
}

/** Every provider, tool, guard and module class node of the app, module by module, each once. */
export function allNodes(graph: AppGraph): ProviderNode[] {
  return graph.modules.flatMap(moduleNodes);
}

function missingToken(where: string, node: ProviderNode, parameter: ParameterToken): string {
  const cycle = '(a circular import of files?)';
  const defineEarly =
    'define the token where nothing in the cycle is imported first, e.g. in a file of its own';
  if (parameter.undefinedAt !== undefined && node.kind === 'factory') {
    return `${where} is undefined: the token was undefined where ${node.module?.name ?? 'the module'} was declared ${cycle}; ${defineEarly}`;
  }
  if (parameter.undefinedAt === 'inject') {
    return `${where} has @Inject(undefined): the token was undefined where ${node.label} was decorated ${cycle}; ${defineEarly}`;
  }
  if (parameter.undefinedAt === 'type') {
    return `${where} has the type undefined: its class was undefined where ${node.label} was decorated ${cycle}; break the cycle of imports between the files, or add @Inject(token) with a token defined outside it`;
  }
  if (parameter.typesMissing !== true) {
    return `${where} has no injection token (its type is an interface, a union or a primitive); add @Inject(token) to the parameter`;
  }
  if (parameter.declaredBy !== undefined) {
    return `${where} has no injection token: TypeScript emitted no constructor parameter types for ${parameter.declaredBy}, whose constructor ${node.label} inherits; decorate ${parameter.declaredBy} with @Injectable() (compiled with "emitDecoratorMetadata": true), or add @Inject(token) to the parameter`;
  }
  if (node.undecorated === true) {
    return `${where} has no injection token: ${node.label} has no decorator, so TypeScript emitted no constructor parameter types for it; decorate ${node.label} with @Injectable() (compiled with "emitDecoratorMetadata": true)`;
  }
  return `${where} has no injection token: TypeScript emitted no constructor parameter types for ${node.label}; compile with "emitDecoratorMetadata": true and decorate the class (@Tool, @Injectable()), or add @Inject(token) to the parameter. If tsconfig.json sets the flag, the likely cause is a runner built on esbuild (tsx, esbuild, Vite, Vitest), which never emits the types: run the code through a compiler that does (tsc, or SWC: node -r @swc-node/register)`;
}

/**
 * Resolves every parameter of every provider and tool to a node, and reports what
 * cannot be: a parameter nothing names, a token nobody provides, a token an import
 * keeps private, an export of something the module does not have, and cycles.
 */
export function linkGraph(graph: AppGraph): void {
  const { problems } = graph;
  for (const module of graph.modules) {
    for (const node of moduleNodes(module)) {
      node.deps = [];
      for (const parameter of node.parameters) {
        const where = `${module.name}: ${node.label}${node.kind === 'factory' ? ' (inject' : "'s constructor parameter"} #${parameter.index}${node.kind === 'factory' ? ')' : ''}${parameter.declaredBy === undefined ? '' : ` (declared by ${parameter.declaredBy})`}`;
        if (parameter.unsupported !== undefined) {
          problems.push({
            code: 'INVALID_MODULE',
            message: `${where} uses tsyringe's ${parameter.unsupported}, which a module cannot satisfy (one provider per token, untransformed); inject one provider with @inject(token) or @Inject(token)`,
          });
          continue;
        }
        if (parameter.token === undefined) {
          problems.push({
            code: 'MISSING_PROVIDER',
            message: missingToken(where, node, parameter),
          });
          continue;
        }
        const found = lookup(module, parameter.token);
        const name = tokenName(parameter.token);
        if (found === undefined) {
          if (parameter.optional === true) {
            node.deps.push(undefined);
            continue;
          }
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
      if (module.own.has(entry) || module.imports.some((m) => exported(m, entry) !== undefined))
        return;
      problems.push({
        code: 'INVALID_MODULE',
        message: `${module.name} exports ${tokenName(entry)}, but neither provides it nor imports a module that exports it; add it to ${module.name}'s providers or remove it from the exports`,
      });
    });
  }
  findCycles(graph);
}

function dependencies(node: ProviderNode): ProviderNode[] {
  return node.deps.filter((dep): dep is ProviderNode => dep !== undefined);
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
    for (const dep of dependencies(node)) visit(dep);
    path.pop();
    done.add(node);
  };
  for (const node of allNodes(graph)) visit(node);
}

/** Where a node's instances live: in the app's scope, or in each session's. */
export type Home = 'app' | 'session';

/**
 * How a node's instances are shared where they live: one (`shared`: an app- or
 * session-scoped provider, a value, a module class), one per injection (`transient`),
 * or one per resolution (`resolution`). An alias shares as what it names.
 */
export function sharingOf(node: ProviderNode): 'shared' | 'transient' | 'resolution' {
  if (node.kind === 'alias') {
    const target = node.deps[0];
    return target === undefined ? 'shared' : sharingOf(target);
  }
  return node.declaredScope === 'transient' || node.declaredScope === 'resolution'
    ? node.declaredScope
    : 'shared';
}

/**
 * Where each node's instances live: in a session when it is session-scoped or needs,
 * directly or not, something that lives in a session (NestJS bubbles request scope up
 * the same way), else in the app.
 */
export function effectiveHomes(graph: AppGraph): Map<ProviderNode, Home> {
  const homes = new Map<ProviderNode, Home>();
  const homeOf = (node: ProviderNode): Home => {
    const known = homes.get(node);
    if (known !== undefined) return known;
    homes.set(node, node.declaredScope === 'session' ? 'session' : 'app');
    const home: Home =
      node.declaredScope === 'session' || dependencies(node).some((d) => homeOf(d) === 'session')
        ? 'session'
        : 'app';
    homes.set(node, home);
    return home;
  };
  for (const node of allNodes(graph)) homeOf(node);
  return homes;
}

/**
 * The chain of injections that makes `node` live in a session: `node`, what it needs,
 * ..., down to a session-scoped provider.
 */
export function sessionChain(
  node: ProviderNode,
  homes: ReadonlyMap<ProviderNode, Home>,
): ProviderNode[] {
  const chain = [node];
  let at = node;
  while (at.declaredScope !== 'session') {
    const next = dependencies(at).find((d) => homes.get(d) === 'session');
    if (next === undefined || chain.includes(next)) break;
    chain.push(next);
    at = next;
  }
  return chain;
}

/**
 * The nodes in an order where each comes after everything it needs (the graph has no
 * cycles once linked without problems), module by module otherwise.
 */
export function dependencyOrder(nodes: Iterable<ProviderNode>): ProviderNode[] {
  const ordered: ProviderNode[] = [];
  const placed = new Set<ProviderNode>();
  const place = (node: ProviderNode): void => {
    if (placed.has(node)) return;
    placed.add(node);
    for (const dep of dependencies(node)) place(dep);
    ordered.push(node);
  };
  for (const node of nodes) place(node);
  return ordered;
}

/**
 * Each node's hierarchy level, as NestJS 12.5 counts it (`Injector.loadInstance`): 0 for
 * a value (never loaded), else one more than its deepest dependency's level. NestJS calls
 * a module's lifecycle hooks level by level in this order (and in reverse when closing).
 */
export function hierarchyLevels(graph: AppGraph): Map<ProviderNode, number> {
  const levels = new Map<ProviderNode, number>();
  const levelOf = (node: ProviderNode): number => {
    const known = levels.get(node);
    if (known !== undefined) return known;
    const level =
      node.kind === 'value' || node.kind === 'builtin'
        ? 0
        : Math.max(0, ...dependencies(node).map(levelOf)) + 1;
    levels.set(node, level);
    return level;
  };
  for (const node of allNodes(graph)) levelOf(node);
  return levels;
}

export type { ModuleProblem };
