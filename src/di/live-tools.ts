import {
  AgentToolError,
  goQuote,
  isLiveTools,
  type LiveTools,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type Tool,
  ToolListeners,
  ToolSet,
  isResourceTemplate,
} from '../core';
import { type ModuleProblem } from './errors';
import { type AppGraph, type ModuleNode, type ProviderNode } from './graph';
import { type Home, sharingOf, visibleIn } from './link';
import { type InstanceScope } from './scope';
import { tokenName } from './tokens';

/** A live source of the app: what names it in errors, the source, and the module that lists it. */
export interface LiveSource {
  readonly label: string;
  readonly live: LiveTools;
  /** The first module that lists it in its `liveTools`: its guards and interceptors apply. */
  readonly module: ModuleNode;
  /** What each of its tools becomes in the app (its module chain around it); absent: itself. */
  readonly wrap?: ((tool: Tool) => Tool) | undefined;
}

/**
 * Checks each module's `liveTools` before anything is built: every token provided where
 * the module sees it, by an app-scoped provider with one instance.
 */
export function checkLiveTools(graph: AppGraph, homes: ReadonlyMap<ProviderNode, Home>): void {
  const problem = (p: ModuleProblem): void => void graph.problems.push(p);
  for (const module of graph.modules) {
    for (const token of module.options.liveTools) {
      const node = visibleIn(module, token);
      const where = `${module.name}: liveTools names ${tokenName(token)}`;
      if (node === undefined) {
        problem({
          code: 'MISSING_PROVIDER',
          message: `${where}, which neither the module nor its imports provide; provide it, or import the module that exports it`,
        });
      } else if (homes.get(node) !== 'app' || sharingOf(node) !== 'shared') {
        problem({
          code: 'INVALID_MODULE',
          message: `${where}, whose provider is not one instance for the app (it is ${homes.get(node) === 'app' ? sharingOf(node) : 'session-scoped'}); live tools are the app's, shared by every caller`,
        });
      }
    }
  }
}

/** The instances the modules' `liveTools` name, each once, checked to be `LiveTools`. */
export async function resolveLiveTools(
  graph: AppGraph,
  appScope: InstanceScope,
): Promise<LiveSource[]> {
  const sources: LiveSource[] = [];
  const seen = new Set<ProviderNode>();
  for (const module of graph.modules) {
    for (const token of module.options.liveTools) {
      const node = visibleIn(module, token);
      if (node === undefined || seen.has(node)) continue;
      seen.add(node);
      const instance = await appScope.resolve(node);
      const label = `${module.name}: ${tokenName(token)}`;
      if (!isLiveTools(instance)) {
        throw new AgentToolError(
          'INVALID_MODULE',
          `${label}: named in liveTools, its value is not LiveTools (it needs tools and onToolsChanged(listener))`,
        );
      }
      sources.push({ label, live: instance, module });
    }
  }
  return sources;
}

/**
 * The prompts and resources the live sources offer besides their tools (`prompts`,
 * `resources`, as `McpServers` gathers them at its start), after the app's own: a name
 * or URI already taken is left out, with a warning.
 */
export function livePrimitives(
  sources: readonly LiveSource[],
  own: { readonly prompts: Prompt[]; readonly resources: (McpResource | McpResourceTemplate)[] },
  warn: (message: string) => void,
): void {
  const names = new Set([
    ...own.prompts.map((p) => `prompt:${p.name}`),
    ...own.resources.map((r) => `resource:${r.name}`),
  ]);
  const uris = new Set(own.resources.map((r) => (isResourceTemplate(r) ? r.uriTemplate : r.uri)));
  for (const { label, live } of sources) {
    const offered = live as { prompts?: unknown; resources?: unknown };
    for (const prompt of iterable<Prompt>(offered.prompts)) {
      if (names.has(`prompt:${prompt.name}`)) {
        warn(`${label}: prompt ${goQuote(prompt.name)} is left out: the app has one of that name`);
        continue;
      }
      names.add(`prompt:${prompt.name}`);
      own.prompts.push(prompt);
    }
    for (const resource of iterable<McpResource | McpResourceTemplate>(offered.resources)) {
      const uri = isResourceTemplate(resource) ? resource.uriTemplate : resource.uri;
      if (names.has(`resource:${resource.name}`) || uris.has(uri)) {
        warn(`${label}: resource ${goQuote(uri)} is left out: the app serves its name or URI`);
        continue;
      }
      names.add(`resource:${resource.name}`);
      uris.add(uri);
      own.resources.push(resource);
    }
  }
}

function iterable<T>(value: unknown): T[] {
  return value !== null && typeof value === 'object' && Symbol.iterator in value
    ? [...(value as Iterable<T>)]
    : [];
}

/**
 * The app's tools: those of its modules, then those of its live sources as they are
 * now, each as its source's `wrap` makes it (the chain of the module that lists the
 * source around it). A source's tool whose name is taken (by the modules' or an earlier source's) is
 * left out, with a warning once per name.
 */
export class AppTools {
  #set: ToolSet | undefined;
  readonly #listeners = new ToolListeners();
  readonly #stops: (() => void)[];
  readonly #warned = new Set<string>();

  constructor(
    private readonly own: readonly Tool[],
    private readonly sources: readonly LiveSource[],
    private readonly warn: (message: string) => void,
  ) {
    this.#stops = sources.map(({ live }) =>
      live.onToolsChanged(() => {
        this.#set = undefined;
        this.#listeners.notify();
      }),
    );
  }

  /** The tools now. */
  get set(): ToolSet {
    if (this.#set === undefined) {
      const tools = [...this.own];
      const names = new Set(tools.map((tool) => tool.name));
      for (const { label, live, wrap } of this.sources) {
        for (const tool of live.tools) {
          if (names.has(tool.name)) {
            const warning = `${label}: tool ${goQuote(tool.name)} is left out: the app has a tool of that name`;
            if (!this.#warned.has(warning)) this.warn(warning);
            this.#warned.add(warning);
            continue;
          }
          names.add(tool.name);
          tools.push(wrap === undefined ? tool : wrap(tool));
        }
      }
      this.#set = new ToolSet(tools);
    }
    return this.#set;
  }

  /** True when there are sources: only then can the tools change. */
  get live(): boolean {
    return this.sources.length > 0;
  }

  onChanged(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Stops following the sources (the app closes them as it closes its providers). */
  close(): void {
    for (const stop of this.#stops) stop();
  }
}
