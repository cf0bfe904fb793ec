import {
  AgentToolError,
  type Constructor,
  isResourceTemplate,
  type McpResource,
  type McpResourceTemplate,
  type Tool,
  ToolSet,
} from '../core';
import {
  type CanActivate,
  classMcpResource,
  type InterceptorLike,
  classPrompt,
  classTool,
  DecoratorError,
  isToolClass,
  toolDescriptorOf,
} from '../decorators';
import { ModuleError, type ModuleProblem } from './errors';
import { addGuardNodes, type AppGraph, type ProviderNode, readModules } from './graph';
import { effectiveHomes, type Home, linkGraph } from './link';
import { checkGuardScopes } from './module-guards';
import { addInterceptorNodes, checkInterceptorScopes } from './module-interceptors';
import { checkModuleClassScopes } from './scope-report';
import { checkLiveTools } from './live-tools';

/** The modules of an app, read and checked, with where each node's instances live. */
export interface CheckedApp {
  readonly graph: AppGraph;
  readonly homes: ReadonlyMap<ProviderNode, Home>;
}

/**
 * Reads the modules of `rootModule` into the app's graph: every module, provider, tool,
 * guard and interceptor (the app's own `interceptors` go to the root module), linked to
 * what each injects. What is wrong is collected in
 * `graph.problems`, for {@link checkApp} to report with everything else.
 */
export function readApp(
  rootModule: Constructor,
  interceptors: readonly InterceptorLike[] = [],
): AppGraph {
  const graph = readModules(rootModule, isToolClass);
  addGuardNodes(graph);
  addInterceptorNodes(graph, interceptors);
  linkGraph(graph);
  return graph;
}

/**
 * Checks everything before anything is built: the modules, every dependency, every
 * tool class and tool name, the scopes of guards and module classes; and decides where
 * each node's instances live. Throws one {@link ModuleError} with every problem.
 */
export function checkApp(graph: AppGraph): CheckedApp {
  checkTools(graph);
  const homes = effectiveHomes(graph);
  checkGuardScopes(graph, homes);
  checkInterceptorScopes(graph, homes);
  checkModuleClassScopes(graph, homes);
  checkLiveTools(graph, homes);
  if (graph.problems.length > 0) throw new ModuleError(graph.root.name, graph.problems);
  return { graph, homes };
}

/** {@link readApp}, then {@link checkApp}. */
export function checkedApp(rootModule: Constructor): CheckedApp {
  return checkApp(readApp(rootModule));
}

/**
 * Reads every tool class before anything is built, so a class that cannot be a tool
 * (a bad `@Param`, a missing `execute`) or two tools with one name are reported with
 * the module's other problems.
 */
function checkTools(graph: AppGraph): void {
  const templates: Tool[] = [];
  for (const module of graph.modules) {
    for (const node of module.tools) {
      try {
        const descriptor = toolDescriptorOf(node.token as Constructor);
        // Guard and interceptor classes are the app's to build, later.
        templates.push(
          classTool(descriptor.cls, unbuilt, {
            resolveGuard: () => UNBUILT_GUARD,
            resolveInterceptor: () => UNBUILT_INTERCEPTOR,
          }),
        );
      } catch (error) {
        if (!(error instanceof DecoratorError)) throw error;
        for (const problem of error.problems) {
          graph.problems.push({ code: 'INVALID_DECORATOR', message: `${module.name}: ${problem}` });
        }
      }
    }
  }
  try {
    new ToolSet(templates).validate();
  } catch (error) {
    const problem: ModuleProblem = {
      code: 'INVALID_TOOL_SET',
      message: error instanceof Error ? error.message : String(error),
    };
    graph.problems.push(problem);
  }
  checkPrimitives(graph);
}

/**
 * Reads every prompt and MCP resource class before anything is built, as
 * {@link checkTools} does for tools: its decorators, and names and URIs unique across
 * the app.
 */
function checkPrimitives(graph: AppGraph): void {
  const names = new Map<string, string>();
  const uris = new Map<string, string>();
  const options = { resolveGuard: () => UNBUILT_GUARD };
  for (const module of graph.modules) {
    const read = (node: ProviderNode, kind: 'prompt' | 'resource'): void => {
      const cls = node.token as Constructor;
      let built;
      try {
        built =
          kind === 'prompt'
            ? classPrompt(cls, unbuilt, options)
            : classMcpResource(cls, unbuilt, options);
      } catch (error) {
        if (!(error instanceof DecoratorError)) throw error;
        for (const problem of error.problems) {
          graph.problems.push({ code: 'INVALID_DECORATOR', message: `${module.name}: ${problem}` });
        }
        return;
      }
      const keyed = (map: Map<string, string>, key: string, what: string): void => {
        const other = map.get(key);
        if (other !== undefined && other !== cls.name) {
          graph.problems.push({
            code: 'INVALID_TOOL_SET',
            message: `${module.name}: ${cls.name} and ${other} both serve the ${what} ${JSON.stringify(key)}; give each its own`,
          });
        }
        map.set(key, cls.name);
      };
      keyed(names, `${kind}:${built.name}`, `${kind} name`);
      if (kind === 'resource') {
        const entry = built as McpResource | McpResourceTemplate;
        keyed(uris, isResourceTemplate(entry) ? entry.uriTemplate : entry.uri, 'URI');
      }
    };
    for (const node of module.prompts) read(node, 'prompt');
    for (const node of module.resources) read(node, 'resource');
  }
}

const UNBUILT_GUARD: CanActivate = { canActivate: unbuilt };
const UNBUILT_INTERCEPTOR = { intercept: unbuilt };

function unbuilt(): never {
  throw new AgentToolError('INTERNAL', 'agenttool/di: a tool was called before its app was built');
}
