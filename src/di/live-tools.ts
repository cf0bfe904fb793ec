import {
  AgentToolError,
  goQuote,
  isLivePrimitives,
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
  /**
   * What each of its prompts and resources becomes in the app (behind its module chain's
   * guards, as a class prompt of that module would be); absent: itself.
   */
  readonly guard?:
    (<T extends Prompt | McpResource | McpResourceTemplate>(item: T) => T) | undefined;
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

/** Prompts and resources: an app's own, or the app's with its live sources'. */
export interface PrimitiveLists {
  readonly prompts: readonly Prompt[];
  readonly resources: readonly (McpResource | McpResourceTemplate)[];
}

/**
 * The app's prompts and resources: its modules' own, then those its live sources offer
 * besides their tools (`prompts`, `resources`, as `McpServers` gathers them) as they are
 * now. A name or URI already taken (by the app's or an earlier source's) is left out,
 * with a warning once. The sources that are `LivePrimitives` are followed: after each of
 * their changes the lists are made again, and the listeners told.
 */
export class AppPrimitives {
  #lists: PrimitiveLists | undefined;
  readonly #listeners = new ToolListeners();
  readonly #stops: (() => void)[];
  readonly #warned = new Set<string>();
  /** True when a source's prompts or resources may change: only then can the lists. */
  readonly live: boolean;

  constructor(
    private readonly own: PrimitiveLists,
    private readonly sources: readonly LiveSource[],
    private readonly warn: (message: string) => void,
  ) {
    const followed = sources.flatMap(({ live }) => (isLivePrimitives(live) ? [live] : []));
    this.live = followed.length > 0;
    this.#stops = followed.map((live) =>
      live.onPrimitivesChanged(() => {
        this.#lists = undefined;
        this.#listeners.notify();
      }),
    );
    // Made now, so that what is left out is warned of as the app starts.
    this.#current();
  }

  get prompts(): readonly Prompt[] {
    return this.#current().prompts;
  }

  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    return this.#current().resources;
  }

  onChanged(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Stops following the sources (the app closes them as it closes its providers). */
  close(): void {
    for (const stop of this.#stops) stop();
  }

  #current(): PrimitiveLists {
    if (this.#lists === undefined) {
      const prompts = [...this.own.prompts];
      const resources = [...this.own.resources];
      const names = new Set([
        ...prompts.map((p) => `prompt:${p.name}`),
        ...resources.map((r) => `resource:${r.name}`),
      ]);
      const uris = new Set(resources.map((r) => (isResourceTemplate(r) ? r.uriTemplate : r.uri)));
      for (const { label, live, guard } of this.sources) {
        const offered = live as { prompts?: unknown; resources?: unknown };
        for (const prompt of iterable<Prompt>(offered.prompts)) {
          if (names.has(`prompt:${prompt.name}`)) {
            this.#warnOnce(
              `${label}: prompt ${goQuote(prompt.name)} is left out: the app has one of that name`,
            );
            continue;
          }
          names.add(`prompt:${prompt.name}`);
          prompts.push(guard === undefined ? prompt : guard(prompt));
        }
        for (const resource of iterable<McpResource | McpResourceTemplate>(offered.resources)) {
          const uri = isResourceTemplate(resource) ? resource.uriTemplate : resource.uri;
          if (names.has(`resource:${resource.name}`) || uris.has(uri)) {
            this.#warnOnce(
              `${label}: resource ${goQuote(uri)} is left out: the app serves its name or URI`,
            );
            continue;
          }
          names.add(`resource:${resource.name}`);
          uris.add(uri);
          resources.push(guard === undefined ? resource : guard(resource));
        }
      }
      this.#lists = { prompts: Object.freeze(prompts), resources: Object.freeze(resources) };
    }
    return this.#lists;
  }

  #warnOnce(warning: string): void {
    if (this.#warned.has(warning)) return;
    this.#warned.add(warning);
    this.warn(warning);
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
