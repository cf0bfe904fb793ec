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

/** The guards each module's tools pass: every importing module's, the root's first, then its own. */
export class ModuleGuards {
  readonly #importers = new Map<ModuleNode, ModuleNode[]>();
  readonly #order: ReadonlyMap<ModuleNode, number>;

  constructor(
    graph: AppGraph,
    private readonly instances: ReadonlyMap<ProviderNode, CanActivate>,
  ) {
    for (const module of graph.modules) {
      for (const imported of module.imports) {
        this.#importers.set(imported, [...(this.#importers.get(imported) ?? []), module]);
      }
    }
    this.#order = new Map(graph.modules.map((module, i) => [module, i]));
  }

  /** How the tools of `module` are built: its guard classes from the app, its modules' guards first. */
  buildOptions(module: ModuleNode): ToolBuildOptions {
    const chain = [...this.#ancestors(module)].sort(
      (a, b) => a.distance - b.distance || this.#order.get(a)! - this.#order.get(b)!,
    );
    const guards = [...chain, module].flatMap((m) =>
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

  #ancestors(module: ModuleNode): Set<ModuleNode> {
    const found = new Set<ModuleNode>();
    const climb = (m: ModuleNode): void => {
      for (const importer of this.#importers.get(m) ?? []) {
        if (found.has(importer) || importer === module) continue;
        found.add(importer);
        climb(importer);
      }
    };
    climb(module);
    return found;
  }
}
