import { ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { type AuthInfo } from '../../../core';
import { mayRead, resourceNotFound } from './access';
import { type Era, INVALID_PARAMS, type PrimitiveBinding, type PrimitiveHost } from './operation';

/**
 * What each 2025-era connection subscribed to (`resources/subscribe`): each URI with the
 * caller that subscribed, whose access is checked again before each notice.
 */
const subscriptions = new WeakMap<Server, Map<string, AuthInfo | undefined>>();

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
    const subscribed = subscriptions.get(server);
    if (subscribed?.has(uri) !== true) continue;
    const auth = subscribed.get(uri);
    sends.push(
      mayRead(host, uri, auth).then((allowed) =>
        allowed
          ? server.notification({ method: 'notifications/resources/updated', params: { uri } })
          : undefined,
      ),
    );
  }
  await Promise.allSettled(sends);
}

/**
 * Serves `resources/subscribe` and `resources/unsubscribe` on a 2025-era connection that
 * outlives its request (`binding.lasting`): a stateless endpoint's connection ends with
 * its request, so it gets no handler, and a subscription there is the SDK's
 * method-not-found (-32601), as its capabilities say. Bounded per connection, in count
 * and in a URI's length (`host.subscriptionLimits`).
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
      if (!(await mayRead(host, uri, auth))) throw resourceNotFound(uri);
      let subscribed = subscriptions.get(server);
      if (subscribed === undefined) {
        subscribed = new Map<string, AuthInfo | undefined>();
        subscriptions.set(server, subscribed);
      }
      if (!subscribed.has(uri) && subscribed.size >= limits.perSession) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `mcp: resources/subscribe: the session holds its limit of ${limits.perSession} subscriptions (maxSubscriptionsPerSession); unsubscribe from one first`,
        );
      }
      subscribed.set(uri, auth);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      subscriptions.get(server)?.delete(request.params.uri);
      return {};
    });
  }
}
