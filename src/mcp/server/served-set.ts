import { type Tool as McpTool } from '@modelcontextprotocol/server';
import {
  accessOf,
  AgentToolError,
  type LivePrimitives,
  type LiveTools,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type RecordFunc,
  type Session,
  type Tool,
} from '../../core';
import { type ServedTool } from './calls';
import { addServable, followTools, type ToolTarget } from './follow-tools';
import { Catalog } from './primitives';
import { type PrimitiveKind } from './served-connections';
import { composeHooks, readSource } from './serve-source';
import { type ErrorReporter } from './session';
import { type ServeSource } from './server-options';
import { catalogChanges, compileServedTools, type ServedChanges, toolChanges } from './swap';

type SessionHook = (session: Session) => void | Promise<void>;

/** What the options add to every source: its session hook, recorder, prompts and resources. */
export interface GivenBeside {
  readonly onSession: SessionHook | undefined;
  readonly recorder: RecordFunc | undefined;
  readonly prompts: readonly Prompt[];
  readonly resources: readonly (McpResource | McpResourceTemplate)[];
}

/** Who hears of what a served set changes. */
export interface ServedSetEvents {
  /** The tool list changed (each tool added or removed, a swap that changed any). */
  toolsChanged(): void;
  primitivesChanged(kind: PrimitiveKind): void;
  readonly report: ErrorReporter;
}

/**
 * What a server serves: its source's tools (compiled), its prompts and resources with
 * the options' after them (the catalog), its session hook and recorder, and, for a source
 * whose tools or primitives change by themselves, the following of those changes. A swap
 * replaces it all at once.
 */
export class ServedSet implements ToolTarget {
  readonly #tools = new Map<string, ServedTool>();
  readonly #given: GivenBeside;
  readonly #events: ServedSetEvents;
  #catalog: Catalog;
  /** The served source's recorder (an app's own), used unless the options name one. */
  #sourceRecorder: RecordFunc | undefined;
  #onSession: SessionHook | undefined;
  /** The definitions and the served tools as lists, made again after a change. */
  #definitions: McpTool[] | undefined;
  #servedList: ServedTool[] | undefined;
  /** True once the first source's tools are added: later changes are changes. */
  #made = false;
  /** True once the list changed after the server was made. */
  #changed = false;
  /** Stops following a source whose tools change (see `LiveTools`). */
  #unfollow: () => void = () => undefined;
  /** True while the served source's tools change by themselves. */
  #live = false;
  /** Stops following a source whose prompts and resources change (see `LivePrimitives`). */
  #unfollowPrimitives: () => void = () => undefined;
  /** True while the served source's prompts and resources change by themselves. */
  #livePrimitives = false;
  #stopped = false;
  /** The first source, read and checked, until {@link start} serves it. */
  #first: ReturnType<typeof readSource> | undefined;

  /**
   * Reads `source` and makes its catalog (throwing, saying why, when either is unusable);
   * nothing is served before {@link start}.
   */
  constructor(source: ServeSource, given: GivenBeside, events: ServedSetEvents) {
    const first = readSource(source);
    this.#given = given;
    this.#events = events;
    this.#catalog = this.#catalogOf(first.prompts, first.resources);
    this.#sourceRecorder = first.recorder;
    this.#onSession = composeHooks(first.onSession, given.onSession);
    this.#first = first;
  }

  /**
   * Serves the first source's tools (all or none; throws when one is refused, as
   * `addTools` does) and follows its changes, once.
   */
  start(): void {
    const first = this.#first;
    if (first === undefined) return;
    this.#first = undefined;
    const { tools, live, livePrimitives } = first;
    // A source whose tools change by themselves (remote servers) is served as its
    // changes are: a tool refused is left out and reported, the others served.
    const added = live === undefined ? tools : addServable(this, tools, this.#events.report);
    if (live === undefined) this.addTools(...tools);
    this.#made = true;
    this.#follow(live, added);
    this.#followPrimitives(livePrimitives);
  }

  /** The served tool named `name`, if any. */
  served(name: string): ServedTool | undefined {
    return this.#tools.get(name);
  }

  /** Every served tool, in the order they were added. */
  servedTools(): readonly ServedTool[] {
    return (this.#servedList ??= [...this.#tools.values()]);
  }

  /** The served tools' MCP definitions, in the same order. */
  definitions(): McpTool[] {
    return (this.#definitions ??= [...this.#tools.values()].map((s) => s.definition));
  }

  /** The prompts, resources and templates served beside the tools. */
  get catalog(): Catalog {
    return this.#catalog;
  }

  /** The recorder calls use: the options', else the served source's. */
  get recorder(): RecordFunc | undefined {
    return this.#given.recorder ?? this.#sourceRecorder;
  }

  /** The session hook: the served source's, then the options'. */
  get onSession(): SessionHook | undefined {
    return this.#onSession;
  }

  /** True when the tool list may change: the source changes it, or it changed already. */
  get mayChange(): boolean {
    return this.#live || this.#changed;
  }

  /** True while the source's prompts and resources change by themselves. */
  get primitivesMayChange(): boolean {
    return this.#livePrimitives;
  }

  /** The scopes the served tools require, each once. */
  scopes(): string[] {
    const scopes = [...this.#tools.values()].flatMap((s) => accessOf(s.tool)?.scopes ?? []);
    return [...new Set(scopes)];
  }

  /** Adds tools, all or none (see `McpToolServer.addTools`); listeners are told. */
  addTools(...tools: Tool[]): void {
    const added = compileServedTools(tools, (name) => this.#tools.has(name));
    if (added.size === 0) return;
    for (const [name, served] of added) this.#tools.set(name, served);
    this.#toolsChanged();
  }

  /** Removes tools by name; returns how many were served. Listeners are told. */
  removeTools(...names: string[]): number {
    let removed = 0;
    for (const name of names) if (this.#tools.delete(name)) removed++;
    if (removed > 0) this.#toolsChanged();
    return removed;
  }

  /** Serves `source` in place of what is served (see `McpToolServer.swap`). */
  swap(source: ServeSource): ServedChanges {
    if (this.#stopped) throw new AgentToolError('CLOSED', 'mcp: swap: the server is closed');
    const { tools, onSession, recorder, prompts, resources, live, livePrimitives } =
      readSource(source);
    const catalog = this.#catalogOf(prompts, resources);
    const served = compileServedTools(tools, () => false);
    const changes = {
      ...toolChanges(this.#tools, served),
      ...catalogChanges(this.#catalog, catalog),
    };
    this.#tools.clear();
    for (const [name, tool] of served) this.#tools.set(name, tool);
    this.#forgetLists();
    this.#catalog = catalog;
    this.#sourceRecorder = recorder;
    this.#onSession = composeHooks(onSession, this.#given.onSession);
    this.#follow(live, tools);
    this.#followPrimitives(livePrimitives);
    const { added, removed, changed, promptsChanged, resourcesChanged } = changes;
    if (added.length > 0 || removed.length > 0 || changed.length > 0) this.#toolsChanged();
    if (promptsChanged) this.#events.primitivesChanged('prompts');
    if (resourcesChanged) this.#events.primitivesChanged('resources');
    return changes;
  }

  /** Stops following the source's changes; a swap is refused from now on. */
  stop(): void {
    this.#stopped = true;
    this.#unfollow();
    this.#unfollowPrimitives();
  }

  #forgetLists(): void {
    this.#definitions = undefined;
    this.#servedList = undefined;
  }

  #toolsChanged(): void {
    this.#forgetLists();
    if (this.#made) this.#changed = true;
    this.#events.toolsChanged();
  }

  /**
   * Follows a source whose tools change by themselves (remote servers that come and go):
   * the served tools are kept equal to its tools, in place of the previous source's.
   */
  #follow(live: LiveTools | undefined, tools: readonly Tool[]): void {
    this.#unfollow();
    this.#live = live !== undefined;
    this.#unfollow =
      live === undefined ? () => undefined : followTools(live, tools, this, this.#events.report);
  }

  /**
   * Follows a source whose prompts and resources change by themselves (remote servers
   * that come and go): after each change the catalog is made again from them (the
   * options' after them), and listening clients are told of the kinds that differ.
   */
  #followPrimitives(live: LivePrimitives | undefined): void {
    this.#unfollowPrimitives();
    this.#livePrimitives = live !== undefined;
    this.#unfollowPrimitives =
      live === undefined ? () => undefined : live.onPrimitivesChanged(() => this.#rebuild(live));
  }

  /** The catalog made again from a live source's prompts and resources as they are now. */
  #rebuild(live: LivePrimitives): void {
    if (this.#stopped) return;
    let catalog: Catalog;
    try {
      catalog = this.#catalogOf([...live.prompts], [...live.resources]);
    } catch (error) {
      // What is served stays as it was: the source's next change is tried again.
      this.#events.report('mcp: serve: the changed prompts and resources are not served', error);
      return;
    }
    const { promptsChanged, resourcesChanged } = catalogChanges(this.#catalog, catalog);
    // The entries may be new objects even where nothing listed differs.
    this.#catalog = catalog;
    if (promptsChanged) this.#events.primitivesChanged('prompts');
    if (resourcesChanged) this.#events.primitivesChanged('resources');
  }

  /** The catalog of a source's prompts and resources, with the options' after them. */
  #catalogOf(
    prompts: readonly Prompt[] | undefined,
    resources: readonly (McpResource | McpResourceTemplate)[] | undefined,
  ): Catalog {
    return new Catalog(
      [...(prompts ?? []), ...this.#given.prompts],
      [...(resources ?? []), ...this.#given.resources],
    );
  }
}
