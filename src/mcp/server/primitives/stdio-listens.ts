import {
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import { type AuthInfo, isJsonObject, type JsonObject } from '../../../core';
import { mayRead } from './access';
import { checkListen, type HeldListen, holdListen } from './listen';
import { type PrimitiveHost } from './operation';

type ListenId = string | number;

/** One listen of the connection whose URIs are held. */
interface StdioListen {
  readonly auth: AuthInfo | undefined;
  readonly uris: ReadonlySet<string>;
  readonly held: HeldListen;
  /** True once the entry acknowledged it with its resource subscriptions honored. */
  acknowledged: boolean;
}

/**
 * The 2026-07-28 resource subscriptions of one stdio connection. The SDK's stdio entry
 * serves `subscriptions/listen` itself (its acknowledgement, the teardown, cancels); this
 * checks a listen's URIs first, as `resources/subscribe` checks one (bounds, and each
 * one the caller may read: one it may not is answered as unknown), holds them in the
 * follows (their resource's `follow`: a composed server's own subscription) from then
 * until the listen ends, and tells each listen of its URIs' changes, only while its
 * caller may still read them. A listen ends when it is cancelled, when the entry
 * answers it (its refusal, or the result that ends it at close), or with the connection.
 */
export class StdioResourceListens {
  readonly #host: PrimitiveHost;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #report: (error: Error) => void;
  readonly #open = new Map<ListenId, StdioListen>();
  /** Listens being checked or held, by id: a cancel meanwhile ends them as they are held. */
  readonly #pending = new Map<ListenId, { cancelled: boolean }>();
  #closed = false;

  constructor(
    host: PrimitiveHost,
    send: (message: JSONRPCMessage) => Promise<void>,
    report: (error: Error) => void,
  ) {
    this.#host = host;
    this.#send = send;
    this.#report = report;
  }

  /**
   * Takes a message the client sent. A listen with resource subscriptions is checked and
   * held here, then handed to `forward` (the entry), or answered with its refusal: true.
   * Anything else is the entry's (false); a cancel of a held listen lets go of it first.
   */
  received(message: JSONRPCMessage, forward: (message: JSONRPCMessage) => void): boolean {
    const json = message as unknown as JsonObject;
    if (json.method === 'notifications/cancelled' && isJsonObject(json.params)) {
      const id = json.params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        this.#end(id);
        const pending = this.#pending.get(id);
        if (pending !== undefined) pending.cancelled = true;
      }
      return false;
    }
    if (json.method !== 'subscriptions/listen') return false;
    const id = json.id;
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    // Without the 2026-07-28 envelope the entry refuses it: nothing to check or hold.
    const meta = isJsonObject(json.params) ? json.params._meta : undefined;
    if (!isJsonObject(meta) || typeof meta[PROTOCOL_VERSION_META_KEY] !== 'string') return false;
    // A listen of no resource goes to the entry at once, in its turn among the messages.
    const notifications = isJsonObject(json.params) ? json.params.notifications : undefined;
    const uris = isJsonObject(notifications) ? notifications.resourceSubscriptions : undefined;
    if (!Array.isArray(uris) || uris.length === 0) return false;
    const pending = { cancelled: false };
    this.#pending.set(id, pending);
    void this.#listen(json, id, pending, () => forward(message))
      .catch((error: unknown) =>
        this.#report(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        if (this.#pending.get(id) === pending) this.#pending.delete(id);
      });
    return true;
  }

  async #listen(
    message: JsonObject,
    id: ListenId,
    pending: { readonly cancelled: boolean },
    forward: () => void,
  ): Promise<void> {
    // Off HTTP there is one caller: its share is not counted (see SubscriberShares).
    const checked = await checkListen(this.#host, message, this.#host.localAuth);
    if (checked === undefined) return forward();
    if ('error' in checked) return this.#send(checked as unknown as JSONRPCMessage);
    if (pending.cancelled || this.#closed) return;
    const held = await holdListen(this.#host, checked, id);
    if ('error' in held) return this.#send(held as unknown as JSONRPCMessage);
    if (pending.cancelled || this.#closed) return held.release();
    // A listen under an id still open replaces it, as the entry's own record does.
    this.#end(id);
    this.#open.set(id, {
      auth: checked.auth,
      uris: new Set(checked.entries.keys()),
      held,
      acknowledged: false,
    });
    forward();
  }

  /**
   * Sees a message the connection sends: the entry's acknowledgement of a held listen
   * lets its notices go out (none before it, none when it honored no resource); an
   * answer to it ends it.
   */
  sent(message: JSONRPCMessage): void {
    if (this.#open.size === 0) return;
    const json = message as unknown as JsonObject;
    const id = json.id;
    if ((typeof id === 'string' || typeof id === 'number') && json.method === undefined) {
      this.#end(id);
      return;
    }
    if (json.method !== 'notifications/subscriptions/acknowledged') return;
    const params = isJsonObject(json.params) ? json.params : undefined;
    const meta = params !== undefined && isJsonObject(params._meta) ? params._meta : undefined;
    const acknowledged = meta?.[SUBSCRIPTION_ID_META_KEY];
    if (typeof acknowledged !== 'string' && typeof acknowledged !== 'number') return;
    const listen = this.#open.get(acknowledged);
    if (listen === undefined) return;
    const honored =
      params !== undefined && isJsonObject(params.notifications)
        ? params.notifications.resourceSubscriptions
        : undefined;
    if (Array.isArray(honored) && honored.length > 0) listen.acknowledged = true;
    else this.#end(acknowledged);
  }

  /**
   * Tells each listen of `uri` that the resource changed, while its caller may still
   * read it; resolves once the notices are written.
   */
  async resourceUpdated(uri: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const [id, listen] of this.#open) {
      if (!listen.acknowledged || !listen.uris.has(uri)) continue;
      sends.push(
        mayRead(this.#host, uri, listen.auth).then(async (allowed) => {
          if (!allowed || this.#open.get(id) !== listen) return;
          await this.#send({
            jsonrpc: '2.0',
            method: 'notifications/resources/updated',
            params: { uri, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
          });
        }),
      );
    }
    const settled = await Promise.allSettled(sends);
    for (const result of settled) {
      if (result.status === 'rejected') {
        const reason: unknown = result.reason;
        this.#report(reason instanceof Error ? reason : new Error(String(reason)));
      }
    }
  }

  /** Lets go of every listen (the connection ended); a listen held later lets go at once. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#open.keys()]) this.#end(id);
  }

  #end(id: ListenId): void {
    const listen = this.#open.get(id);
    if (listen === undefined) return;
    this.#open.delete(id);
    listen.held.release();
  }
}
