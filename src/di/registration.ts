import { type DependencyContainer } from 'tsyringe';
import { type AppGraph, builtinFor, type ProviderNode } from './graph';
import { allNodes, type Home, sharingOf, visibleIn } from './link';
import { type Token } from './tokens';
import { registerAlias, registerClass, registerValue } from './tsyringe-adapter';

/** Registers every node of the app in its container, under the node's own key. */
export function register(
  container: DependencyContainer,
  graph: AppGraph,
  homes: ReadonlyMap<ProviderNode, Home>,
): void {
  const registered = new Set<ProviderNode>();
  const add = (node: ProviderNode): void => {
    if (registered.has(node)) return;
    registered.add(node);
    switch (node.kind) {
      case 'builtin':
      case 'value':
        registerValue(container, node.key, node.build([]));
        break;
      case 'alias':
        registerAlias(container, node.key, node.deps[0]!.key);
        break;
      case 'class':
      case 'tool':
      case 'module': {
        const sharing = sharingOf(node);
        registerClass(
          container,
          node.key,
          sharing === 'shared' ? (homes.get(node) ?? 'app') : sharing,
          (args) => node.build([...args]) as object,
        );
        break;
      }
      case 'factory':
        // Registered once built: its value may come from a promise, which tsyringe cannot await.
        break;
    }
    for (const dep of node.deps) if (dep !== undefined) add(dep);
  };
  for (const node of allNodes(graph)) add(node);
}

/**
 * Makes `app.container.resolve(token)` answer, for each token the root module sees
 * whose provider is one instance for the app, the app's instance.
 */
export function exposeRootTokens(
  container: DependencyContainer,
  graph: AppGraph,
  homes: ReadonlyMap<ProviderNode, Home>,
): void {
  const tokens = new Set<Token>(graph.modules.flatMap((module) => [...module.own.keys()]));
  for (const token of tokens) {
    const node = visibleIn(graph.root, token);
    if (node === undefined || builtinFor(token) === node) continue;
    if (homes.get(node) !== 'app' || sharingOf(node) !== 'shared') continue;
    registerAlias(container, token, node.key);
  }
}
