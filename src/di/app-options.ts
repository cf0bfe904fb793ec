import { AgentToolError, type Elicitor, type RecordFunc, type Session } from '../core';
import { type OnStart } from '../executor';
import { type InterceptorLike } from '../decorators';
import { type ScopeChange } from './scope-report';
import { DEFAULT_MAX_QUEUED_CALLS } from './turns';

/** How an app runs its tools. */
export interface ToolAppOptions {
  /** The bound on tools running at once (default 8). */
  readonly maxParallel?: number | undefined;
  /** Run every batch one call at a time. */
  readonly sequential?: boolean | undefined;
  /** Where records go, for every batch that does not bring its own. */
  readonly recorder?: RecordFunc | undefined;
  /** Who answers the tools' questions, for every batch that does not bring its own. */
  readonly elicitor?: Elicitor | undefined;
  /** Called the moment each call is handed to its tool; a throw refuses the call. */
  readonly onStart?: OnStart | undefined;
  /**
   * Stops the start when it aborts: `ToolApp.create` rejects with `CANCELLED`, naming the
   * factories and hooks still under way, once it has closed what it built.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Bounds the start (building every app-scoped provider, tool and module class, and
   * their `onModuleInit` and `onApplicationBootstrap`) to this many milliseconds: past
   * it, `ToolApp.create` rejects with `TIMEOUT`, naming each factory or hook that had not
   * settled and how long it had been waited for, once it has closed what it built.
   * Unbounded by default.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Receives, once when the app starts, the app-scoped providers and tools it builds per
   * session because they need a session-scoped provider (NestJS's scope bubbling; also
   * `app.scopeReport`). Without it, those whose app scope was stated (not a default) are
   * written as one process warning, `AgentToolScopeWarning`.
   */
  readonly onScopeReport?: ((changes: readonly ScopeChange[]) => void) | undefined;
  /**
   * Receives, once when the app has started, what it warns of without refusing to start:
   * tools without a description (the contract allows one, but a model chooses its tools
   * by their descriptions). Without it, the warning is written as a process warning,
   * `AgentToolWarning` (on stderr by default).
   */
  readonly onWarning?: ((warning: string) => void) | undefined;
  /**
   * How many calls may wait for one resource of one session or handle (a tool built per
   * session that names a `@Resource`, such as the shell's `shell:session`): served calls
   * on it run one at a time in the order they came, and a call past this many waiting
   * fails at once with a tool error saying so. Default 16 ({@link DEFAULT_MAX_QUEUED_CALLS}).
   */
  readonly maxQueuedCalls?: number | undefined;
  /**
   * Interceptors around every call of every tool of the app, served or in a batch (NestJS's
   * global interceptors): run first, then the modules' `interceptors`, then each tool's
   * `@UseInterceptors`, once the call's guards have let it through and its arguments are
   * valid. Objects with `intercept(context, next)`, functions, or classes of them, built
   * once with the root module's providers injected (see docs/interceptors.md).
   */
  readonly interceptors?: readonly InterceptorLike[] | undefined;
}

/** What one batch of an app runs with, besides its jobs. */
export interface AppBatchOptions {
  readonly signal?: AbortSignal | undefined;
  /** This batch's recorder; wins over the app's. */
  readonly recorder?: RecordFunc | undefined;
  /** This batch's elicitor; wins over the app's. */
  readonly elicitor?: Elicitor | undefined;
  /** The client session the batch serves (session-scoped providers are per session). */
  readonly session?: Session | undefined;
}

/** Where the app's warnings go: `onWarning`, else a process warning. */
export function warner(options: ToolAppOptions): (warning: string) => void {
  return options.onWarning ?? ((warning) => process.emitWarning(warning, 'AgentToolWarning'));
}

export function maxQueuedCalls(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_QUEUED_CALLS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `ToolApp.create: maxQueuedCalls must be a whole number of calls, 0 or more, got ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value)}`,
    );
  }
  return value;
}
