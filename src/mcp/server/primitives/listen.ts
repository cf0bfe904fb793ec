import { AsyncLocalStorage } from 'node:async_hooks';
import { type ServerEvent, type ServerEventBus } from '@modelcontextprotocol/server';
import { type AuthInfo, isJsonObject, type JsonObject } from '../../../core';
import { mayRead, readable, resourceNotFound } from './access';
import { INVALID_PARAMS, type PrimitiveHost } from './operation';
import { refusal } from './subscriptions';

/** The resource subscriptions of one 2026-07-28 `subscriptions/listen`, checked. */
export interface CheckedListen {
  /** Who listens: its access is checked again before each notice. */
  readonly auth: AuthInfo | undefined;
  /** Each URI asked for (once), with what `resources/read` of it would read. */
  readonly entries: ReadonlyMap<string, Parameters<PrimitiveHost['follows']['hold']>[1]>;
  /** The caller's key, whose share the URIs count against (`maxSubscriptionsPerSubject`). */
  readonly key: string | undefined;
}

/** The in-band JSON-RPC error that refuses a listen. */
export interface ListenRefusal {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** A listen's URIs, held (see {@link holdListen}). */
export interface HeldListen {
  /** Lets go of the holds and gives the URIs back to the caller's share. */
  readonly release: () => void;
}

/** The refusal of the listen whose request id is `id`. */
export function listenError(
  id: unknown,
  code: number,
  text: string,
  data?: unknown,
): ListenRefusal {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code, message: text, ...(data === undefined ? {} : { data }) },
  };
}

/** A listen's stream as the bus knows it: its caller, its URIs, and their holds. */
interface Listening {
  readonly auth: AuthInfo | undefined;
  readonly uris: ReadonlySet<string>;
  readonly held: HeldListen;
  /** True once the SDK's stream registered with the bus, which then releases the holds. */
  adopted: boolean;
}

/** One stream registered with the bus. */
interface Registered {
  readonly listener: (event: ServerEvent) => void;
  /** Its resource subscriptions; none for a listen that asked for no resource. */
  readonly listening: Listening | undefined;
  live: boolean;
}

/**
 * Checks the resource subscriptions of a 2026-07-28 `subscriptions/listen` (`message`)
 * as `resources/subscribe` checks one: within the bounds (`host.subscriptionLimits`:
 * at most that many URIs in one listen, each at most that long), and each one the
 * caller may read, a URI it may not read answered as one that does not exist. Resolves
 * with the checked listen, or with the answer that refuses it (its JSON-RPC error, in
 * band: HTTP 200, as the entry answers a listen it refuses). A listen without
 * resource subscriptions, or whose filter is malformed (the entry refuses it), is
 * undefined.
 */
export async function checkListen(
  host: PrimitiveHost,
  message: JsonObject,
  auth: AuthInfo | undefined,
  key?: string,
): Promise<CheckedListen | ListenRefusal | undefined> {
  const params = message.params;
  if (!isJsonObject(params) || !isJsonObject(params.notifications)) return undefined;
  const asked = params.notifications.resourceSubscriptions;
  if (!Array.isArray(asked) || asked.length === 0) return undefined;
  if (!asked.every((uri): uri is string => typeof uri === 'string')) return undefined;
  const error = (code: number, text: string, data?: unknown): ListenRefusal =>
    listenError(message.id, code, text, data);
  const limits = host.subscriptionLimits;
  const uris = [...new Set(asked)];
  if (uris.length > limits.perSession) {
    return error(
      INVALID_PARAMS,
      `mcp: subscriptions/listen: resourceSubscriptions names ${uris.length} URIs, over the limit of ${limits.perSession} (maxSubscriptionsPerSession); listen to fewer`,
    );
  }
  for (const uri of uris) {
    const bytes = Buffer.byteLength(uri);
    if (bytes > limits.uriBytes) {
      return error(
        INVALID_PARAMS,
        `mcp: subscriptions/listen: a URI is ${bytes} bytes, over the limit of ${limits.uriBytes} (maxSubscriptionUriBytes); listen to a shorter one`,
      );
    }
  }
  const entries = new Map<string, Parameters<PrimitiveHost['follows']['hold']>[1]>();
  for (const uri of uris) {
    // A resource the caller may not read is answered as one that does not exist.
    const entry = await readable(host, uri, auth);
    if (entry === undefined) {
      const unknown = resourceNotFound(uri);
      return error(unknown.code, unknown.message, unknown.data);
    }
    entries.set(uri, entry);
  }
  return { auth, entries, key };
}

/**
 * Holds each URI of a checked listen (its resource's `follow`, see `host.follows`)
 * against the caller's share: resolves once every hold is ready, with what lets go of
 * them, or with the refusal of the listen (what a `follow` throws refuses it, as it
 * refuses `resources/subscribe`; so does a share it would pass).
 */
export async function holdListen(
  host: PrimitiveHost,
  checked: CheckedListen,
  id: unknown,
): Promise<HeldListen | ListenRefusal> {
  const giveBack = host.subscriptionLimits.perSubject.take(checked.key, checked.entries.size);
  if (typeof giveBack === 'string') {
    return listenError(id, INVALID_PARAMS, `mcp: subscriptions/listen: ${giveBack}`);
  }
  const holds = [...checked.entries].map(([uri, entry]) => ({
    uri,
    hold: host.follows.hold(uri, entry),
  }));
  const release = (): void => {
    for (const { hold } of holds) hold.release();
    giveBack();
  };
  for (const { uri, hold } of holds) {
    try {
      await hold.ready;
    } catch (failure) {
      release();
      const refused = refusal(uri, failure, 'subscriptions/listen');
      return listenError(id, refused.code, refused.message, refused.data);
    }
  }
  return { release };
}

/**
 * The 2026-07-28 resource subscriptions of an HTTP endpoint: the `ServerEventBus` its
 * SDK entry's listen router registers each `subscriptions/listen` stream with, and the
 * check a listen passes before it reaches the entry.
 *
 * The router delivers `resource_updated` to every stream whose filter names the URI,
 * with no access check of its own. This bus knows each stream's caller: the endpoint
 * runs the entry's `fetch` for a listen inside {@link ResourceListeners.open}, whose
 * context (AsyncLocalStorage) the router's `bus.subscribe` runs in, synchronously, as it
 * opens the stream. A notice then reaches a stream only while its caller may still read
 * the resource (as a 2025-era subscription's notice), and the stream holds each URI in
 * `host.follows` from its opening until it ends (the client closes it, the server
 * closes, its token expires: the router unsubscribes from the bus each time).
 */
export class ResourceListeners implements ServerEventBus {
  readonly #host: PrimitiveHost;
  readonly #registered = new Set<Registered>();
  readonly #context = new AsyncLocalStorage<Listening>();
  readonly #report: (error: Error) => void;

  constructor(host: PrimitiveHost, report: (error: Error) => void) {
    this.#host = host;
    this.#report = report;
  }

  /**
   * Serves a checked listen: holds each URI (see {@link holdListen}), then
   * runs `serve` (the entry's `fetch`) where the stream it opens is known to the bus as
   * this listen's. A listen the entry answers without a stream (refused, or one whose
   * filter it honors nothing of) lets go of its holds at once.
   */
  async open(
    checked: CheckedListen,
    id: unknown,
    serve: () => Promise<Response>,
  ): Promise<Response> {
    const held = await holdListen(this.#host, checked, id);
    if ('error' in held) return Response.json(held);
    const listening: Listening = {
      auth: checked.auth,
      uris: new Set(checked.entries.keys()),
      held,
      adopted: false,
    };
    try {
      return await this.#context.run(listening, serve);
    } finally {
      // The router registers a stream as it makes its answer; none was registered.
      if (!listening.adopted) held.release();
    }
  }

  /**
   * Tells the streams that listen to `uri` that the resource changed, each only while
   * its caller may still read it; resolves once the notices are written.
   */
  async resourceUpdated(uri: string): Promise<void> {
    const event: ServerEvent = { kind: 'resource_updated', uri };
    const sends: Promise<void>[] = [];
    for (const registered of this.#registered) {
      const listening = registered.listening;
      if (listening === undefined || !listening.uris.has(uri)) continue;
      sends.push(
        mayRead(this.#host, uri, listening.auth).then((allowed) => {
          if (allowed && registered.live) this.#deliver(registered, event);
        }),
      );
    }
    await Promise.allSettled(sends);
  }

  publish(event: ServerEvent): void {
    if (event.kind === 'resource_updated') {
      void this.resourceUpdated(event.uri);
      return;
    }
    for (const registered of [...this.#registered]) this.#deliver(registered, event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const listening = this.#context.getStore();
    if (listening !== undefined) listening.adopted = true;
    const registered: Registered = { listener, listening, live: true };
    this.#registered.add(registered);
    return () => {
      if (!registered.live) return;
      registered.live = false;
      this.#registered.delete(registered);
      listening?.held.release();
    };
  }

  #deliver(registered: Registered, event: ServerEvent): void {
    try {
      registered.listener(event);
    } catch (error) {
      this.#report(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
