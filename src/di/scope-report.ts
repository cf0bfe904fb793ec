import { type AppGraph, type ProviderNode } from './graph';
import { allNodes, type Home, sessionChain } from './link';

/**
 * A provider or tool that the app builds per session though it is app-scoped, because
 * it injects, directly or not, a session-scoped provider: NestJS's scope bubbling (a
 * provider that needs a request-scoped one is request-scoped itself), reported rather
 * than done silently, and never the other way round (a shorter-lived instance kept by a
 * longer-lived one).
 */
export interface ScopeChange {
  /** The module that lists it. */
  readonly module: string;
  /** The provider or tool, as errors name it (`BashTool`, `the factory of "CONFIG"`). */
  readonly provider: string;
  /** True when its scope was stated (`scope: 'app'`, `@Injectable({ scope: 'app' })`, `@singleton()`), not a default. */
  readonly stated: boolean;
  /** The injections that make it per session: itself first, a session-scoped provider last. */
  readonly chain: readonly string[];
  /** One line saying all of the above. */
  readonly message: string;
}

/** The app-scoped providers and tools the app builds per session, in the order of their modules. */
export function scopeChanges(
  graph: AppGraph,
  homes: ReadonlyMap<ProviderNode, Home>,
): ScopeChange[] {
  const changes: ScopeChange[] = [];
  for (const node of allNodes(graph)) {
    if (node.declaredScope !== 'app' || homes.get(node) !== 'session') continue;
    if (node.kind !== 'class' && node.kind !== 'tool' && node.kind !== 'factory') continue;
    const chain = sessionChain(node, homes).map((n) => n.label);
    const module = node.module?.name ?? 'the app';
    const stated = node.scopeStated === true;
    changes.push({
      module,
      provider: node.label,
      stated,
      chain,
      message: `${module}: ${node.label} is ${stated ? 'stated app-scoped' : 'app-scoped'} but is built once per session, as it needs a session-scoped provider (${chain.join(' -> ')}); make it session-scoped, or inject a longer-lived provider`,
    });
  }
  return changes;
}

/**
 * What the app does with its scope changes when `onScopeReport` is not given: the ones
 * whose app scope was stated contradict their declaration, so they are written as one
 * process warning (`AgentToolScopeWarning`, on stderr by default); a default scope
 * bubbling up is what NestJS does without a word, so it is left to `app.scopeReport`.
 */
export function warnOfStatedChanges(root: string, changes: readonly ScopeChange[]): void {
  const stated = changes.filter((change) => change.stated);
  if (stated.length === 0) return;
  process.emitWarning(
    `ToolApp.create(${root}): ${stated.map((change) => change.message).join('\n')}`,
    { type: 'AgentToolScopeWarning', code: 'AGENTTOOL_SCOPE_CHANGED' },
  );
}

/**
 * A module class is built once for the app, so one that needs a session-scoped provider
 * is a problem (NestJS would not call its hooks at all).
 */
export function checkModuleClassScopes(
  graph: AppGraph,
  homes: ReadonlyMap<ProviderNode, Home>,
): void {
  for (const module of graph.modules) {
    const self = module.self;
    if (self === undefined || homes.get(self) !== 'session') continue;
    const chain = sessionChain(self, homes).map((n) => n.label);
    graph.problems.push({
      code: 'INVALID_MODULE',
      message: `${module.name}: the module class needs a session-scoped provider (${chain.join(' -> ')}), but a module class is built once for the app; inject what it needs into a session-scoped provider instead`,
    });
  }
}
