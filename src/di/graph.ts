import { type Constructor } from '../core';
import {
  type CanActivate,
  declaredGuards,
  guardProblem,
  isGuardClass,
  isMcpResourceClass,
  isPromptClass,
  toolDescriptorOf,
} from '../decorators';
import { type ModuleProblem } from './errors';
import { isModuleClass, moduleOptionsOf } from './module';
import { type ModuleNode, type ProviderNode } from './graph-nodes';
import { classNode, describeEntry, providerNode } from './provider-nodes';

export { type ModuleNode, type ProviderKind, type ProviderNode } from './graph-nodes';
export { builtinFor, classNode } from './provider-nodes';

// How an app's module tree is read into a graph: its modules, their providers, tools,
// prompts, resources, guards and interceptors, and the problems found on the way.

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
      prompts: [],
      resources: [],
      guards: new Map(),
      interceptors: new Map(),
      self: undefined,
      distance: 0,
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
      // Listed in `providers` too, or twice: one provider, one instance.
      const provided = node.own.get(tool) ?? node.tools.find((t) => t.token === tool);
      if (provided !== undefined) {
        if (!node.tools.includes(provided)) node.tools.push(provided);
        return;
      }
      node.tools.push(classNode(node, tool, tool, 'tool', tool.name));
    });
    const served = (
      list: readonly Constructor[],
      into: ProviderNode[],
      option: 'prompts' | 'resources',
      is: (cls: unknown) => boolean,
      fix: string,
    ): void => {
      list.forEach((cls, i) => {
        if (typeof cls !== 'function' || !is(cls)) {
          problems.push({
            code: 'INVALID_DECORATOR',
            message: `${node.name} lists ${describeEntry(cls)} at ${option}[${i}], but it has no ${fix}`,
          });
          return;
        }
        const provided = node.own.get(cls) ?? into.find((n) => n.token === cls);
        if (provided !== undefined) {
          if (!into.includes(provided)) into.push(provided);
          return;
        }
        into.push(classNode(node, cls, cls, 'tool', cls.name));
      });
    };
    served(
      options.prompts ?? [],
      node.prompts,
      'prompts',
      isPromptClass,
      '@Prompt decorator; add @Prompt({ name, description, args }) to the class',
    );
    served(
      options.resources ?? [],
      node.resources,
      'resources',
      isMcpResourceClass,
      "@McpResource or @McpResourceTemplate decorator; add @McpResource({ uri, name }) or @McpResourceTemplate({ uriTemplate, name }) to the class (the executor's @Resource is a lock, not an MCP resource)",
    );
    node.self = classNode(node, cls, cls, 'module', cls.name);
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
      options: {
        imports: [],
        tools: [],
        prompts: [],
        resources: [],
        providers: [],
        exports: [],
        guards: [],
        interceptors: [],
        liveTools: [],
      },
      imports: [],
      own: new Map(),
      tools: [],
      prompts: [],
      resources: [],
      guards: new Map(),
      interceptors: new Map(),
      self: undefined,
      distance: 0,
    };
    return { root: empty, modules: [], problems };
  }
  const root = visit(rootCls);
  measureDistances(root);
  return { root, modules, problems };
}

/**
 * Adds a node for each guard class a module's `guards` or its tools' `@Guard`s name, and
 * reports a module guard that is not one. A tool class that cannot be read is left to
 * the tool checks.
 */
export function addGuardNodes(graph: AppGraph): void {
  for (const module of graph.modules) {
    const classes: Constructor<CanActivate>[] = [];
    module.options.guards.forEach((guard, i) => {
      const problem = guardProblem(guard);
      if (problem !== undefined) {
        graph.problems.push({
          code: 'INVALID_MODULE',
          message: `${module.name} guards[${i}]: ${problem}`,
        });
      } else if (isGuardClass(guard)) classes.push(guard);
    });
    for (const tool of module.tools) {
      let guards: readonly unknown[];
      try {
        guards = toolDescriptorOf(tool.token as Constructor).properties.guards;
      } catch {
        continue;
      }
      for (const guard of guards) if (isGuardClass(guard)) classes.push(guard);
    }
    for (const served of [...module.prompts, ...module.resources]) {
      for (const guard of declaredGuards(served.token as Constructor)) {
        if (isGuardClass(guard)) classes.push(guard);
      }
    }
    for (const cls of classes) {
      if (module.guards.has(cls)) continue;
      const own = module.own.get(cls);
      module.guards.set(cls, own ?? classNode(module, cls, cls, 'class', `guard ${cls.name}`));
    }
  }
}

/**
 * Each module's depth, as NestJS 12.5 computes it (`TopologyTree` in
 * @nestjs/core/injector/topology-tree): the modules in the reverse post-order of a
 * depth-first walk of the imports from the root (depth 1), each import one deeper than
 * its deepest importer; an import back to a module earlier in that order (a cycle) is
 * left out.
 */
function measureDistances(root: ModuleNode): void {
  const visited = new Set<ModuleNode>();
  const order: ModuleNode[] = [];
  const visit = (module: ModuleNode): void => {
    visited.add(module);
    for (const imported of module.imports) if (!visited.has(imported)) visit(imported);
    order.push(module);
  };
  visit(root);
  order.reverse();
  const positions = new Map(order.map((module, i) => [module, i]));
  root.distance = 1;
  for (const [position, module] of order.entries()) {
    for (const imported of module.imports) {
      if (positions.get(imported)! <= position) continue;
      imported.distance = Math.max(imported.distance, module.distance + 1);
    }
  }
}
