import { AgentToolError, type Constructor } from '../core';
import { type CanActivate, guardFunctions, type ToolBuildOptions } from '../decorators';
import { type AppGraph, type ModuleNode, type ProviderNode } from './graph';

/**
 * A guard decides for every caller of every session, so it is built once for the app:
 * one that needs a session-scoped provider is a problem.
 */
export function checkGuardScopes(graph: AppGraph, scopes: ReadonlyMap<ProviderNode, string>): void {
  for (const module of graph.modules) {
    for (const node of module.guards.values()) {
      if (scopes.get(node) !== 'session') continue;
      graph.problems.push({
        code: 'INVALID_MODULE',
        message: `${module.name}: ${node.label} needs a session-scoped provider, but a guard is built once for the app; inject CallAuth or CallSession to read the current caller instead`,
      });
    }
  }
}

/**
 * The modules whose `guards` the tools of `module` pass, in the order they are asked:
 * each module that imports it, directly or not, the nearest to the root first (modules
 * at one distance in the order they were found), then `module` itself.
 */
export function guardChain(graph: AppGraph, module: ModuleNode): ModuleNode[] {
  const importers = new Map<ModuleNode, ModuleNode[]>();
  for (const m of graph.modules) {
    for (const imported of m.imports) {
      importers.set(imported, [...(importers.get(imported) ?? []), m]);
    }
  }
  const order = new Map(graph.modules.map((m, i) => [m, i]));
  const found = new Set<ModuleNode>();
  const climb = (m: ModuleNode): void => {
    for (const importer of importers.get(m) ?? []) {
      if (found.has(importer) || importer === module) continue;
      found.add(importer);
      climb(importer);
    }
  };
  climb(module);
  const chain = [...found].sort((a, b) => a.distance - b.distance || order.get(a)! - order.get(b)!);
  return [...chain, module];
}

/** The guards each module's tools pass: every importing module's, the root's first, then its own. */
export class ModuleGuards {
  constructor(
    private readonly graph: AppGraph,
    private readonly instances: ReadonlyMap<ProviderNode, CanActivate>,
  ) {}

  /** How the tools of `module` are built: its guard classes from the app, its modules' guards first. */
  buildOptions(module: ModuleNode): ToolBuildOptions {
    const guards = guardChain(this.graph, module).flatMap((m) =>
      guardFunctions(m.options.guards, m.name, (cls) => this.#instance(m, cls)),
    );
    return { guards, resolveGuard: (cls) => this.#instance(module, cls) };
  }

  #instance(module: ModuleNode, cls: Constructor<CanActivate>): CanActivate {
    const node = module.guards.get(cls);
    const instance = node === undefined ? undefined : this.instances.get(node);
    if (instance === undefined) {
      throw new AgentToolError('INTERNAL', `agenttool/di: guard ${cls.name} was not built`);
    }
    return instance;
  }
}
