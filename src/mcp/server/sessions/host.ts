import {
  type ClientCapabilities,
  type Implementation,
  type ServerContext,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { type AuthInfo, type RecordFunc } from '../../../core';
import { type CallTracker, type RoundTrips, type ServedTool } from '../calls';
import { type ErrorReporter, type SessionLease } from '../session';
import { type Tasks } from '../tasks';
import { type Catalog, type ResourceFollows, type SubscriptionLimits } from '../primitives';

/** What every SDK server instance of one tool server shares. */
export interface InstanceHost {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly recorder: RecordFunc | undefined;
  readonly report: ErrorReporter;
  /** How much progress text a call sends at most (bytes). */
  readonly progressBudget: number;
  /** How long a call waited on with a progress token stays quiet at most (ms; 0: no keepalive). */
  readonly progressKeepalive: number;
  readonly trips: RoundTrips;
  /** The calls in flight, and the signal that stops them when the server closes. */
  readonly calls: CallTracker;
  /** The server's tasks (2026-07-28 calls of tools that run as tasks). */
  readonly tasks: Tasks;
  /**
   * The caller of connections that carry no credentials (stdio, in memory); undefined:
   * none, so tools that require scopes are not theirs.
   */
  readonly localAuth: AuthInfo | undefined;
  /** What `tools.listChanged` announces now: whether the list can change (see the option). */
  listChanged(): boolean;
  /** True while the source's prompts and resources change by themselves (see `PrimitiveHost`). */
  primitivesMayChange(): boolean;
  definitions(): McpTool[];
  /** Every served tool, in the order of {@link definitions}. */
  servedTools(): readonly ServedTool[];
  served(name: string): ServedTool | undefined;
  /** The prompts, resources and templates served beside the tools. */
  readonly catalog: Catalog;
  /** How many entries one page of a prompts or resources list holds. */
  readonly listPageSize: number;
  /** What one 2025-era connection may subscribe to (`resources/subscribe`). */
  readonly subscriptionLimits: SubscriptionLimits;
  /** The URIs subscribed to over every connection, each followed once (`follow`). */
  readonly follows: ResourceFollows;
}

/** How an instance finds the session of a call: pinned to its connection, or per request. */
export interface SessionBinding {
  /** The session of a new call made by the request `ctx`. */
  lease(ctx: ServerContext, client: ClientCapabilities | undefined): SessionLease;
  /**
   * Who may answer a parked call's questions: requests with the same owner (the session
   * a handle names, "" without one).
   */
  owner(ctx: ServerContext): string;
  /**
   * True when a call goes on after the client drops its request's connection: its stream
   * can be resumed (`Last-Event-ID`). Otherwise a dropped connection stops the call.
   */
  readonly resumable?: boolean;
  /**
   * False when the connection ends with the one request it serves (a `stateless`
   * endpoint's): nothing the server sends later reaches its client, so it is offered
   * no subscriptions.
   */
  readonly lasting?: boolean;
  /**
   * True where a 2026-07-28 `subscriptions/listen`'s resource subscriptions are checked
   * and followed before the SDK's entry serves it (the HTTP endpoint's, see
   * `ResourceListeners`): its instances offer `resources.subscribe`. Absent elsewhere.
   */
  readonly listens?: boolean;
  /**
   * Ends the session the request `ctx` names by handle, when its caller opened it
   * (`SESSION_END_METHOD`); absent where sessions are not held by handle.
   */
  end?(ctx: ServerContext): Promise<void>;
}
