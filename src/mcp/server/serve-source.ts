import {
  AgentToolError,
  isLivePrimitives,
  isLiveTools,
  type LivePrimitives,
  type LiveTools,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type RecordFunc,
  type Session,
  type Tool,
} from '../../core';
import { type ServeSource } from './server-options';

/** What a served source holds: its tools, its session hook and its recorder. */
export function readSource(source: ServeSource): {
  tools: Tool[];
  onSession: ((session: Session) => void | Promise<void>) | undefined;
  recorder?: RecordFunc | undefined;
  prompts?: Prompt[];
  resources?: (McpResource | McpResourceTemplate)[];
  /** The source itself when its tools change while served (see `LiveTools`). */
  live?: LiveTools;
  /** The source itself when its prompts and resources change while served (see `LivePrimitives`). */
  livePrimitives?: LivePrimitives;
} {
  if (source === null || typeof source !== 'object') {
    throw new AgentToolError(
      'INVALID_TOOL_SET',
      'mcp: serve: give a tool, an iterable of tools, or an object with `tools`',
    );
  }
  // A tool has a name; an app (which also has an `execute`, for batches) does not.
  if (
    'execute' in source &&
    typeof source.execute === 'function' &&
    typeof (source as { name?: unknown }).name === 'string'
  ) {
    return { tools: [source], onSession: undefined };
  }
  if ('tools' in source && source.tools !== undefined && !isToolSetLike(source)) {
    const app = source as {
      tools: Iterable<Tool>;
      onSession?(session: Session): unknown;
      recorder?: unknown;
      prompts?: Iterable<Prompt>;
      resources?: Iterable<McpResource | McpResourceTemplate>;
    };
    const onSession =
      typeof app.onSession === 'function'
        ? (session: Session) => app.onSession?.(session) as void | Promise<void>
        : undefined;
    // The app's own recorder, where its tools run.
    const recorder = typeof app.recorder === 'function' ? (app.recorder as RecordFunc) : undefined;
    return {
      tools: [...app.tools],
      onSession,
      recorder,
      ...(app.prompts === undefined ? {} : { prompts: [...app.prompts] }),
      ...(app.resources === undefined ? {} : { resources: [...app.resources] }),
      ...(isLiveTools(source) ? { live: source } : {}),
      ...(isLivePrimitives(source) ? { livePrimitives: source } : {}),
    };
  }
  if (Symbol.iterator in source)
    return { tools: [...(source as Iterable<Tool>)], onSession: undefined };
  throw new AgentToolError(
    'INVALID_TOOL_SET',
    'mcp: serve: give a tool, an iterable of tools, or an object with `tools`',
  );
}

// A ToolSet has `tools` too; it is served as the iterable it is.
function isToolSetLike(source: object): boolean {
  return Symbol.iterator in source && !('onSession' in source);
}

export function composeHooks(
  first: ((session: Session) => void | Promise<void>) | undefined,
  second: ((session: Session) => void | Promise<void>) | undefined,
): ((session: Session) => void | Promise<void>) | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return async (session) => {
    await first(session);
    await second(session);
  };
}
