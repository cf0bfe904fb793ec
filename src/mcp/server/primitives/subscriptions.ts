import { ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { type AuthInfo, errorMessage, goQuote, ValidationError } from '../../../core';
import { callerKeyOf } from '../http';
import { readable, mayRead, resourceNotFound } from './access';
import { type FollowHold } from './follows';
import {
  type Era,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  type PrimitiveBinding,
  type PrimitiveHost,
} from './operation';

/** One URI a connection subscribed to: the caller that subscribed, and its hold on the URI. */
interface Subscription {
  /** Whose access is checked again before each notice: the latest to subscribe. */
  auth: AuthInfo | undefined;
  readonly hold: FollowHold;
  /** Gives it back to its caller's share (`maxSubscriptionsPerSubject`). */
  readonly giveBack: () => void;
}

/** Lets go of a subscription: its hold on the URI and its place in its caller's share. */
function release(subscription: Subscription): void {
  subscription.hold.release();
  subscription.giveBack();
}

/**
 * What each 2025-era connection subscribed to (`resources/subscribe`): each URI with the
 * caller that subscribed, whose access is checked again before each notice.
 */
const subscriptions = new WeakMap<Server, Map<string, Subscription>>();
/** The connections that ended: a subscription that was being answered keeps nothing. */
const ended = new WeakSet<Server>();

/**
 * Tells each 2025-era connection of `servers` that subscribed to `uri` that the
 * resource changed (`notifications/resources/updated`), if its caller may still read
 * it: the catalog, or a guard's answer, may have changed since it subscribed.
 */
export async function notifyResourceUpdated(
  host: PrimitiveHost,
  servers: Iterable<Server>,
  uri: string,
): Promise<void> {
  const sends: Promise<void>[] = [];
  for (const server of servers) {
    const subscribed = subscriptions.get(server)?.get(uri);
    if (subscribed === undefined) continue;
    sends.push(
      mayRead(host, uri, subscribed.auth).then((allowed) =>
        allowed
          ? server.notification({ method: 'notifications/resources/updated', params: { uri } })
          : undefined,
      ),
    );
  }
  await Promise.allSettled(sends);
}

/**
 * Forgets what the connection of `server` subscribed to, once it ended: each URI no
 * other connection holds is no longer followed (see `ResourceDescription.follow`).
 */
export function forgetSubscriptions(server: Server): void {
  ended.add(server);
  const subscribed = subscriptions.get(server);
  subscriptions.delete(server);
  for (const subscription of subscribed?.values() ?? []) release(subscription);
}

/**
 * Serves `resources/subscribe` and `resources/unsubscribe` on a 2025-era connection that
 * outlives its request (`binding.lasting`): a stateless endpoint's connection ends with
 * its request, so it gets no handler, and a subscription there is the SDK's
 * method-not-found (-32601), as its capabilities say. Bounded per connection, in count
 * and in a URI's length (`host.subscriptionLimits`). A resource that follows its
 * subscribers (`follow`) is followed from the first subscription to the last
 * (`host.follows`), and the subscription is answered once it is followed.
 */
export function serveSubscriptions(
  server: Server,
  host: PrimitiveHost,
  era: Era,
  binding: PrimitiveBinding,
  caller: (ctx: ServerContext) => AuthInfo | undefined,
): void {
  if (era === 'legacy' && binding.lasting !== false) {
    const limits = host.subscriptionLimits;
    server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      const { uri } = request.params;
      const bytes = Buffer.byteLength(uri);
      if (bytes > limits.uriBytes) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `mcp: resources/subscribe: the URI is ${bytes} bytes, over the limit of ${limits.uriBytes} (maxSubscriptionUriBytes); subscribe to a shorter one`,
        );
      }
      const auth = caller(ctx);
      // A resource the caller may not read is answered as one that does not exist.
      const entry = await readable(host, uri, auth);
      if (entry === undefined) throw resourceNotFound(uri);
      if (ended.has(server)) return {};
      let subscribed = subscriptions.get(server);
      if (subscribed === undefined) {
        subscribed = new Map<string, Subscription>();
        subscriptions.set(server, subscribed);
      }
      const held = subscribed.get(uri);
      if (held !== undefined) {
        held.auth = auth;
        await held.hold.ready.catch((error: unknown) => {
          throw refusal(uri, error);
        });
        return {};
      }
      if (subscribed.size >= limits.perSession) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `mcp: resources/subscribe: the session holds its limit of ${limits.perSession} subscriptions (maxSubscriptionsPerSession); unsubscribe from one first`,
        );
      }
      const giveBack = limits.perSubject.take(callerKeyOf(ctx), 1);
      if (typeof giveBack === 'string') {
        throw new ProtocolError(INVALID_PARAMS, `mcp: resources/subscribe: ${giveBack}`);
      }
      const subscription: Subscription = { auth, hold: host.follows.hold(uri, entry), giveBack };
      subscribed.set(uri, subscription);
      try {
        await subscription.hold.ready;
      } catch (error) {
        if (subscribed.get(uri) === subscription) subscribed.delete(uri);
        giveBack();
        throw refusal(uri, error);
      }
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      const { uri } = request.params;
      const subscribed = subscriptions.get(server);
      const subscription = subscribed?.get(uri);
      subscribed?.delete(uri);
      if (subscription !== undefined) release(subscription);
      return {};
    });
  }
}

/**
 * The answer to a subscription its resource's `follow` refused, as a read's failure is
 * answered: a protocol error as it is, a `ValidationError` as invalid params, any other
 * as an internal error, with its message (naming `method`, the request that subscribed).
 */
export function refusal(
  uri: string,
  error: unknown,
  method = 'resources/subscribe',
): ProtocolError {
  if (ProtocolError.isInstance(error)) return error;
  return new ProtocolError(
    error instanceof ValidationError ? INVALID_PARAMS : INTERNAL_ERROR,
    `mcp: ${method} ${goQuote(uri)}: ${errorMessage(error)}`,
  );
}
