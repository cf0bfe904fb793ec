import { ProtocolError } from '@modelcontextprotocol/server';
import { AgentToolError, errorMessage, goQuote, type StopFollowing } from '../../core';
import { type RemoteTools } from '../client';
import { scrubbed } from './secrets';
import { type SupervisedServer } from './supervised-server';

/**
 * How many resources the servers of an `McpServers` are subscribed to at most, by
 * default: ten times what one session of an agenttool server may hold (1000), so that
 * one session cannot take every subscription from the composition's other clients.
 */
export const DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS = 10_000;

/** How long one `resources/subscribe` (or unsubscribe) to a server may take (ms). */
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** How many reports are remembered, so as to be made once each. */
const WARNED_KEPT = 1000;

/** JSON-RPC "Invalid params": a URI refused (unknown, too long, ...). */
const INVALID_PARAMS = -32602;
/** What 2025-era servers answered for a resource they do not have. */
const RESOURCE_NOT_FOUND = -32002;

/** One URI of one server that clients of the composition subscribe to. */
interface Upstream {
  /** Each `follow` under way: told when the server says the resource changed. */
  readonly followers: Set<() => void>;
  /** The connection it is subscribed over, while it is. */
  on: RemoteTools | undefined;
  /** The subscription being made, over `pendingOn`, and what it found. */
  pending: Promise<ProtocolError | undefined> | undefined;
  pendingOn: RemoteTools | undefined;
  /**
   * The connection a subscription failed over other than by a refusal (no answer in
   * time, say): the server may have taken it all the same, so it is unsubscribed too.
   */
  failedOn: RemoteTools | undefined;
}

/**
 * The subscriptions of the composition's clients to its servers' resources, passed on:
 * each URI subscribed to once on its server however many clients follow it (reference
 * counted), unsubscribed when the last stops, made again over each new connection, and
 * the server's `notifications/resources/updated` passed to the followers of that URI
 * only. Bounded in number (`maxResourceSubscriptions`).
 */
export class UpstreamSubscriptions {
  readonly #servers = new Map<SupervisedServer, Map<string, Upstream>>();
  #count = 0;
  readonly #warned = new Set<string>();
  #closed = false;

  constructor(
    private readonly limit: number,
    private readonly report: (message: string) => void,
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new AgentToolError(
        'INVALID_OPTIONS',
        `McpServers: maxResourceSubscriptions must be a whole number, at least 1, got ${String(limit)}`,
      );
    }
  }

  /**
   * Follows the resource at `uri` of `server` (a resource's `follow`): subscribes to it
   * on the server unless it is subscribed already, and resolves once the server has
   * answered (or at once, while the server is down or offers no subscriptions). Refuses
   * (rejects, as the client's subscription is then answered) only past the limit, or
   * when the server refuses the URI as invalid params (it does not have it); any other
   * failure is reported and the subscription stands, made again when the server
   * connects again.
   */
  async follow(server: SupervisedServer, uri: string, changed: () => void): Promise<StopFollowing> {
    if (this.#closed) return () => undefined;
    let uris = this.#servers.get(server);
    if (uris === undefined) {
      uris = new Map();
      this.#servers.set(server, uris);
    }
    let upstream = uris.get(uri);
    if (upstream === undefined) {
      if (this.#count >= this.limit) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `mcp server ${goQuote(server.config.name)}: resources/subscribe ${goQuote(uri)}: the servers are subscribed to their limit of ${this.limit} resources (maxResourceSubscriptions); try again once clients unsubscribe from some`,
        );
      }
      upstream = {
        followers: new Set(),
        on: undefined,
        pending: undefined,
        pendingOn: undefined,
        failedOn: undefined,
      };
      uris.set(uri, upstream);
      this.#count++;
    }
    // Each follow is its own follower, even with the same `changed`.
    const follower = (): void => changed();
    upstream.followers.add(follower);
    const held = upstream;
    const stop = (): void => this.#leave(server, uri, held, follower);
    const refused = await this.#subscribe(server, uri, held);
    if (refused !== undefined) {
      stop();
      throw refused;
    }
    return stop;
  }

  /** The server said the resource at `uri` changed: its followers are told; nobody's, nothing. */
  updated(server: SupervisedServer, uri: string): void {
    const upstream = this.#servers.get(server)?.get(uri);
    if (upstream === undefined) return;
    for (const follower of [...upstream.followers]) {
      try {
        follower();
      } catch {
        // One follower's failure must not keep the others from hearing of it.
      }
    }
  }

  /** `server` connected (again): each URI still followed is subscribed to over the new connection, one at a time. */
  connected(server: SupervisedServer): void {
    const uris = this.#servers.get(server);
    const remote = server.remote;
    if (uris === undefined || uris.size === 0 || remote === undefined) return;
    void (async () => {
      for (const [uri, upstream] of [...uris]) {
        if (this.#closed || server.remote !== remote) return;
        if (uris.get(uri) !== upstream || upstream.followers.size === 0) continue;
        const refused = await this.#subscribe(server, uri, upstream);
        if (refused !== undefined) {
          this.#warnOnce(
            `${refused.message} (as it connected again); its clients' subscriptions stand, but no updates of it are passed on`,
          );
        }
      }
    })();
  }

  /** Forgets every subscription (the set is closing: its connections close). */
  close(): void {
    this.#closed = true;
    this.#servers.clear();
    this.#count = 0;
  }

  /**
   * Subscribes to `uri` over the server's connection of the moment, unless it is
   * subscribed there already or being subscribed (then its answer is shared); the
   * refusal to pass on to the followers, or undefined.
   */
  #subscribe(
    server: SupervisedServer,
    uri: string,
    upstream: Upstream,
  ): Promise<ProtocolError | undefined> {
    const remote = server.remote;
    // A server that is down is subscribed to once it connects again (see connected).
    if (remote === undefined || remote.isClosed || upstream.on === remote) {
      return Promise.resolve(undefined);
    }
    if (upstream.pending !== undefined && upstream.pendingOn === remote) return upstream.pending;
    const name = server.config.name;
    if (remote.serverCapabilities.resources?.subscribe !== true) {
      this.#warnOnce(
        `mcp server ${goQuote(name)}: it offers no resource subscriptions${remote.era === 'modern' ? ' (it speaks 2026-07-28)' : ''}: its clients' subscriptions to its resources are taken, but its updates are not passed on`,
      );
      return Promise.resolve(undefined);
    }
    const pending = this.#attempt(server, uri, upstream, remote);
    upstream.pending = pending;
    upstream.pendingOn = remote;
    return pending;
  }

  /** One `resources/subscribe` over `remote`, bounded in time; see {@link #subscribe}. */
  async #attempt(
    server: SupervisedServer,
    uri: string,
    upstream: Upstream,
    remote: RemoteTools,
  ): Promise<ProtocolError | undefined> {
    const name = server.config.name;
    try {
      await remote.subscribeResource(uri, { signal: AbortSignal.timeout(SUBSCRIBE_TIMEOUT_MS) });
      upstream.on = remote;
      upstream.failedOn = undefined;
      return undefined;
    } catch (error) {
      const refused = refusal(error);
      if (refused !== undefined) {
        return new ProtocolError(
          INVALID_PARAMS,
          `mcp server ${goQuote(name)}: resources/subscribe ${goQuote(uri)}: it refused: ${clipped(scrubbed(refused, server.config.secrets))}`,
          { uri },
        );
      }
      upstream.failedOn = remote;
      this.#warnOnce(
        `mcp server ${goQuote(name)}: resources/subscribe ${goQuote(uri)} failed: ${scrubbed(errorMessage(error), server.config.secrets)}; its clients' subscriptions stand, and it is subscribed again when it connects again`,
      );
      return undefined;
    } finally {
      if (upstream.pendingOn === remote) {
        upstream.pending = undefined;
        upstream.pendingOn = undefined;
      }
      // The last follower left while it was being subscribed.
      if (upstream.followers.size === 0) this.#drop(server, uri, upstream);
    }
  }

  #leave(server: SupervisedServer, uri: string, upstream: Upstream, follower: () => void): void {
    if (!upstream.followers.delete(follower) || upstream.followers.size > 0) return;
    // A subscription being made drops it once it is answered.
    if (upstream.pending === undefined) this.#drop(server, uri, upstream);
  }

  /** No one follows `uri` any more: it is forgotten, and unsubscribed from on the server. */
  #drop(server: SupervisedServer, uri: string, upstream: Upstream): void {
    const uris = this.#servers.get(server);
    if (uris?.get(uri) !== upstream) return;
    uris.delete(uri);
    this.#count--;
    const on = upstream.on ?? upstream.failedOn;
    upstream.on = undefined;
    upstream.failedOn = undefined;
    if (on === undefined || on !== server.remote || on.isClosed) return;
    on.unsubscribeResource(uri, { signal: AbortSignal.timeout(SUBSCRIBE_TIMEOUT_MS) }).catch(
      (error: unknown) =>
        this.#warnOnce(
          `mcp server ${goQuote(server.config.name)}: resources/unsubscribe ${goQuote(uri)} failed: ${scrubbed(errorMessage(error), server.config.secrets)}`,
        ),
    );
  }

  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    // Each URI may have its own report: what is remembered stays bounded.
    if (this.#warned.size >= WARNED_KEPT) this.#warned.clear();
    this.#warned.add(message);
    this.report(message);
  }
}

/**
 * The server's message when it refused a subscription as invalid params (-32602, or
 * the older -32002 "resource not found"): it does not have the URI, or refuses it.
 */
function refusal(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  if (code !== INVALID_PARAMS && code !== RESOURCE_NOT_FOUND) return undefined;
  return typeof message === 'string' ? message : errorMessage(error);
}

/** The most characters of a server's message passed on to a client. */
const MAX_PASSED_MESSAGE = 1000;

/** `text`, cut at {@link MAX_PASSED_MESSAGE} characters, saying so: a server's words are its own to make long. */
function clipped(text: string): string {
  return text.length <= MAX_PASSED_MESSAGE
    ? text
    : `${text.slice(0, MAX_PASSED_MESSAGE)}... (${text.length - MAX_PASSED_MESSAGE} more characters)`;
}
