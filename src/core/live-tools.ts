import { type McpResource, type McpResourceTemplate, type Prompt } from './primitives';
import { type Tool } from './tool';

/**
 * A set of tools that changes while it is used: the tools of remote MCP servers that come
 * and go, say. `tools` is read again after each change; a host that serves or runs the
 * set (an MCP server, an app) follows it through {@link LiveTools.onToolsChanged}. A
 * source that also offers prompts and resources that change is a {@link LivePrimitives}
 * too, and followed as one.
 */
export interface LiveTools {
  /** The tools as of now, in order, each name once. */
  readonly tools: Iterable<Tool>;
  /**
   * Calls `listener` after each change of {@link LiveTools.tools} (synchronously or
   * not; a listener that throws is the source's to ignore); returns a function that
   * stops calling it.
   */
  onToolsChanged(listener: () => void): () => void;
  /**
   * False when the tools cannot change now (an app without live sources): a host need
   * not follow them, nor tell its clients the list may change. Absent means true.
   */
  readonly mayChange?: boolean | undefined;
}

/**
 * True for a value with `tools` and an `onToolsChanged` method whose tools may change: a
 * {@link LiveTools} a host follows (`mayChange` false reads as a fixed set).
 */
export function isLiveTools(value: unknown): value is LiveTools {
  if (typeof value !== 'object' || value === null) return false;
  const source = value as Partial<LiveTools>;
  return (
    typeof source.onToolsChanged === 'function' &&
    source.tools !== undefined &&
    source.mayChange !== false
  );
}

/**
 * Prompts and resources that change while they are served: those of remote MCP servers
 * that come and go, or that add and remove some (`McpServers`), or those of an app with
 * such a source. `prompts` and `resources` are read again after each change; a host that
 * serves them (an MCP server, an app) follows them through
 * {@link LivePrimitives.onPrimitivesChanged}. Often the same object as a
 * {@link LiveTools}.
 */
export interface LivePrimitives {
  /** The prompts as of now, in order, each name once. */
  readonly prompts: Iterable<Prompt>;
  /** The resources and resource templates as of now, in order, each URI and name once. */
  readonly resources: Iterable<McpResource | McpResourceTemplate>;
  /**
   * Calls `listener` after a change of {@link LivePrimitives.prompts} or
   * {@link LivePrimitives.resources} (synchronously or not; a listener that throws is the
   * source's to ignore); returns a function that stops calling it. A host compares what
   * it reads again with what it serves: a call that changed nothing is harmless.
   */
  onPrimitivesChanged(listener: () => void): () => void;
  /**
   * False when the prompts and resources cannot change now (an app without live sources
   * that offer them): a host need not follow them, nor tell its clients the lists may
   * change. Absent means true.
   */
  readonly primitivesMayChange?: boolean | undefined;
}

/**
 * True for a value with `prompts`, `resources` and an `onPrimitivesChanged` method whose
 * prompts and resources may change: a {@link LivePrimitives} a host follows
 * (`primitivesMayChange` false reads as fixed lists).
 */
export function isLivePrimitives(value: unknown): value is LivePrimitives {
  if (typeof value !== 'object' || value === null) return false;
  const source = value as Partial<LivePrimitives>;
  return (
    typeof source.onPrimitivesChanged === 'function' &&
    source.prompts !== undefined &&
    source.resources !== undefined &&
    source.primitivesMayChange !== false
  );
}

/**
 * Listeners of a {@link LiveTools} or a {@link LivePrimitives}: `add` is its
 * `onToolsChanged` (or `onPrimitivesChanged`), `notify` calls each listener once, a
 * throwing listener ignored so the others are still told.
 */
export class ToolListeners {
  readonly #listeners = new Set<() => void>();

  /** Adds `listener`; returns its remover. */
  add(listener: () => void): () => void {
    // Each registration is its own, so one listener added twice is removed once per remover.
    const entry = (): void => listener();
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }

  /** Calls every listener once. */
  notify(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A failing listener must not keep the others from hearing of the change.
      }
    }
  }
}
