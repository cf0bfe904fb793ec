import {
  type AuthInfo,
  type McpResource,
  type McpResourceTemplate,
  type Prompt,
  type RecordFunc,
  type Session,
  type Tool,
} from '../../core';
import { type Readable, type Writable } from 'node:stream';
import { type RoundTripOptions } from './calls';
import { type ScaleOutOptions } from './scale';
import { type ErrorReporter, type McpSession } from './session';
import { type TaskOptions } from './tasks';

/** How many resources one 2025-era session subscribes to at most, by default (1000). */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION = 1000;
/** How many resource subscriptions one caller holds at most over HTTP, by default (1000). */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT = 1000;
/** How long a URI one subscribes to is at most, in UTF-8 bytes, by default (8 KiB). */
export const DEFAULT_MAX_SUBSCRIPTION_URI_BYTES = 8 * 1024;

/** How a served set is described and what it hooks into. */
export interface McpServerOptions extends RoundTripOptions {
  /** The server's name (`initialize`, `server/discover`); `agenttool` by default. */
  readonly name?: string;
  /** The server's version; `0` by default. */
  readonly version?: string;
  /** Instructions for the client. */
  readonly instructions?: string;
  /**
   * Runs when a session opens, before any of its calls (calls wait for it). Per-session
   * state is set up here and torn down with `session.onClose`.
   */
  readonly onSession?: (session: Session) => void | Promise<void>;
  /**
   * A recorder installed on every call's context (records are written before it returns).
   * Default: the served app's own (`recorder` of an app-like source, such as a `ToolApp`
   * created with one). What a call records goes to this recorder, on the server's side;
   * what crosses to the client is the record of the result's details, under
   * `_meta[RECORD_META_KEY]`.
   */
  readonly recorder?: RecordFunc;
  /**
   * Where failures that have nobody else to go to are reported (a panic-equivalent's
   * stack, a failing `onClose` listener), and what a client sent that was refused (in
   * one line, without a stack). Default: stderr, never stdout, with at most ten
   * refusals of clients per place (`mcp: http`, `mcp: stdio`) a minute and a line of
   * how many more; this reporter gets every one.
   */
  readonly onError?: ErrorReporter;
  /**
   * How much progress text one call sends at most, in bytes (default 64 KiB): past it
   * one last update says `[output truncated]` and later updates carry numbers only.
   */
  readonly progressBudgetBytes?: number;
  /**
   * How long a running call stays quiet at most while its request waits with a progress
   * token, in ms (default 15000, `DEFAULT_PROGRESS_KEEPALIVE_MS`; 0 for never):
   * once the call has sent no progress for this long (a quiet command, or one whose
   * text is past {@link McpServerOptions.progressBudgetBytes}), the server sends progress
   * with no text and higher numbers, so that a host which restarts its request timeout
   * on progress (the SDK client's `resetTimeoutOnProgress`, 60 s by default) waits for
   * a call that is still working. Nothing is sent for a call whose request carries no
   * progress token, nor for tasks (their clients poll). Keep it well under the shortest
   * timeout of the hosts served.
   */
  readonly progressKeepaliveMs?: number;
  /**
   * How long the server's `close()` waits for the calls it stopped to answer and for
   * the answers to go out, before it closes the transports anyway (ms; default 5000).
   */
  readonly closeGraceMs?: number;
  /**
   * Serve as one of several instances behind a load balancer, sharing a request-state
   * key and a Redis (see {@link ScaleOutOptions} and docs/deploy.md).
   */
  readonly scaleOut?: ScaleOutOptions;
  /**
   * The caller of connections that carry no credentials: stdio and `connect()` (MCP
   * leaves stdio's authorization to the environment). Default: none, so the tools that
   * require scopes or have guards that need a caller are not theirs. HTTP requests are
   * authorized by the endpoint's own `auth` option instead.
   */
  readonly localAuth?: AuthInfo | undefined;
  /**
   * How calls run as MCP tasks, for 2026-07-28 clients that take the tasks extension
   * and for 2025-era sessions (the 2025-11-25 experimental tasks): TTL, poll interval,
   * limits (see {@link TaskOptions} and docs/tasks.md). Which tools run as tasks is
   * each tool's own declaration (`taskSupport`, `@TaskSupport`).
   */
  readonly tasks?: TaskOptions;
  /**
   * Whether the tool list can change while the server runs, announced to clients as
   * `tools.listChanged`. A client that reads true waits for a change notice after each
   * call that may change the list; a fixed list saying false spares it that wait. By
   * default false until the list first changes after the server was made (`addTools`,
   * `removeTools`), true from then on; give `true` for a server whose list will change
   * (tools added later, proxied lists, a reload), so that clients listen from the start.
   * Change notices are sent whenever the list changes, whatever this says.
   */
  readonly listChanged?: boolean;
  /**
   * Prompts served beside the tools (after the source's own, e.g. a `ToolApp`'s). A
   * server with none offers no `prompts` capability.
   */
  readonly prompts?: Iterable<Prompt>;
  /**
   * Resources and resource templates served beside the tools (after the source's own).
   * A server with none offers no `resources` capability.
   */
  readonly resources?: Iterable<McpResource | McpResourceTemplate>;
  /**
   * How many entries one page of `prompts/list`, `resources/list` and
   * `resources/templates/list` holds (default 100); the rest follow by `nextCursor`.
   */
  readonly listPageSize?: number;
  /**
   * How many resources one 2025-era session subscribes to at most (`resources/subscribe`;
   * default {@link DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION}, 1000), and one 2026-07-28
   * `subscriptions/listen` names at most in its `resourceSubscriptions`. Past it a
   * subscription to another URI (a listen naming more) is refused as invalid params
   * (-32602) naming the limit; the session unsubscribes from one first.
   */
  readonly maxSubscriptionsPerSession?: number;
  /**
   * How many resource subscriptions one caller holds at most over all its sessions and
   * 2026-07-28 streams, over HTTP (its token's subject, or its address without auth;
   * default {@link DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT}, 1000): so that no caller,
   * opening sessions, takes every subscription a server (a composition's upstream
   * subscriptions, say) can hold from the others. Past it a subscription is refused as
   * invalid params (-32602) naming the limit. Not counted over stdio or in memory.
   */
  readonly maxSubscriptionsPerSubject?: number;
  /**
   * How long a URI a 2025-era session subscribes to (or a 2026-07-28 listen names) is at most, in UTF-8 bytes (default
   * {@link DEFAULT_MAX_SUBSCRIPTION_URI_BYTES}, 8 KiB); a longer one is refused as
   * invalid params (-32602) giving both sizes.
   */
  readonly maxSubscriptionUriBytes?: number;
}

/** Something the server closes: an HTTP listener, a mounted handler, a stdio connection. */
export interface Closer {
  /** Refuses new requests and resolves once the answers in flight have gone out. */
  drain?(): Promise<void>;
  /**
   * True when nothing is in flight and, if a load balancer polls the health route,
   * it has been told the server is leaving: a drain may end.
   */
  quiet?(): boolean;
  close(): Promise<void>;
}

/**
 * What can be served: a tool, tools (an array, a `ToolSet`), or an app-like object with
 * `tools` and, optionally, `prompts` and `resources`, an `onSession` hook (run as {@link McpServerOptions.onSession})
 * and a `recorder` (used unless {@link McpServerOptions.recorder} names another).
 */
export type ServeSource =
  | Tool
  | Iterable<Tool>
  | {
      readonly tools: Iterable<Tool>;
      onSession?(session: Session): void | Promise<void>;
      readonly recorder?: RecordFunc | undefined;
      /** Prompts served beside the tools. */
      readonly prompts?: Iterable<Prompt> | undefined;
      /** Resources and resource templates served beside the tools. */
      readonly resources?: Iterable<McpResource | McpResourceTemplate> | undefined;
      /**
       * With `tools`, a `LiveTools`: the served tools follow `tools` after each change
       * (an app with remote servers, `McpServers`), and clients are told.
       */
      onToolsChanged?(listener: () => void): () => void;
      /**
       * With `prompts` and `resources`, a `LivePrimitives`: the served prompts and
       * resources follow them after each change (an app with remote servers,
       * `McpServers`), and clients are told.
       */
      onPrimitivesChanged?(listener: () => void): () => void;
    };

/** Where and how a stdio connection is served (see `McpToolServer.serveStdio`). */
export interface StdioServeOptions {
  /** The connection's input: the process's own stdin unless given. */
  readonly stdin?: Readable;
  /** The connection's output: the process's own stdout unless given. */
  readonly stdout?: Writable;
  /**
   * The largest message read, in bytes (default `DEFAULT_STDIO_MESSAGE_BYTES`, 10 MiB).
   * A longer one is not read: the connection goes on, a request's id (wherever it sits
   * among the message's top-level members) is answered with a JSON-RPC error (-32000)
   * that gives both sizes, an answer of the client fails the server's request it
   * answers with that error (nothing is sent back), and the error reporter is told.
   */
  readonly maxMessageBytes?: number;
  /**
   * The largest message written, in bytes (default `DEFAULT_STDIO_SENT_MESSAGE_BYTES`,
   * 10 MiB less 64 KiB: the SDK's stdio client closes the connection when a message
   * outgrows its 10 MiB buffer, and so would end the session). A longer message is
   * replaced: a tool call's result by a tool error (`isError`) that gives its size and
   * asks for less at a time, any other response by a JSON-RPC error (-32000); a longer
   * request or notification is not written. The error reporter is told of each. At
   * least 1024, room for the error that replaces a longer message.
   */
  readonly maxSentMessageBytes?: number;
}

/** A connection served over stdio. */
export interface StdioConnection {
  /** Resolves when the connection has ended (stdin ended, or {@link StdioConnection.close}). */
  readonly closed: Promise<void>;
  /** Ends the connection and its session. */
  close(): Promise<void>;
}

/**
 * A session being set up: the session, and its `onSession` hook's outcome (undefined
 * when there is no hook: nothing to wait for).
 */
export interface OpenedSession {
  readonly session: McpSession;
  readonly ready: Promise<void> | undefined;
}

/** @internal How a session opens (see `McpToolServer.openSession`). */
export interface SessionOpening {
  /** The session is one call's own and ends with it (see `Session.endsWithCall`). */
  readonly endsWithCall?: boolean;
  /** Who calls, where no subject says (see `Session.callerKey`). */
  readonly callerKey?: string | undefined;
  /** When the client has read the answers sent to it (see `Session.whenAnswersRead`). */
  readonly whenAnswersRead?: ((signal?: AbortSignal) => Promise<void> | undefined) | undefined;
}

/** @internal The connection an SDK instance is pinned to (see `McpToolServer.pinnedInstance`). */
export interface PinnedConnection extends SessionOpening {
  /** The session's id: its `Mcp-Session-Id`, or "" where it has none. */
  readonly sessionId: string;
  /** A call goes on when the client drops its request (its stream can be resumed). */
  readonly resumable?: boolean;
  /**
   * Its callers carry an auth subject (they may list their tasks). Default: whether the
   * server's local caller has one.
   */
  readonly identified?: boolean;
  /** The method of the one message the instance serves, when it serves one. */
  readonly inbound?: string | undefined;
}
