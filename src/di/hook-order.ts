import { type AppGraph, type ModuleNode, type ProviderNode } from './graph';
import { type HookOrder } from './lifecycle';
import { hierarchyLevels, moduleNodes } from './link';

/**
 * The order NestJS 12.5 calls the hooks in, for the nodes of `graph`: the modules by
 * depth, the deepest first and modules of one depth in the order they were found
 * (`NestApplicationContext.getModulesToTriggerHooksOn`, a stable sort of the modules in
 * the order its scanner found them, depth first); each node by its hierarchy level; and,
 * inside a level, as its module lists it.
 */
export function hookOrder(graph: AppGraph): HookOrder {
  const ranks = new Map<ModuleNode, number>(
    [...graph.modules].sort((a, b) => b.distance - a.distance).map((m, i) => [m, i]),
  );
  const positions = new Map<ProviderNode, number>();
  for (const module of graph.modules) {
    moduleNodes(module).forEach((node, i) => {
      if (!positions.has(node)) positions.set(node, i);
    });
  }
  const levels = hierarchyLevels(graph);
  return {
    moduleRankOf: (node) => (node.module === undefined ? 0 : (ranks.get(node.module) ?? 0)),
    levelOf: (node) => levels.get(node) ?? 0,
    positionOf: (node) => positions.get(node) ?? 0,
  };
}
