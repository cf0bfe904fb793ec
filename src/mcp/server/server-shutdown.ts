import { setImmediate as realSetImmediate } from 'node:timers';
import { bounded } from './calls';
import { type ScaleOut } from './scale';
import { type Closer } from './server-options';
import { type ServedConnections } from './served-connections';
import { type McpSession } from './session';
import { type InstanceHost } from './sessions';

/** How often a drain looks whether the work in flight is done (ms). */
const DRAIN_POLL_MS = 25;

/** What stopping a server goes through. */
export interface ServerParts {
  readonly host: InstanceHost;
  /** The HTTP listeners and stdio connections, drained and closed. */
  readonly closers: ReadonlySet<Closer>;
  readonly connections: ServedConnections;
  /** The sessions open (the set itself: sessions leave it as they close). */
  readonly sessions: ReadonlySet<McpSession>;
  readonly scale: ScaleOut | undefined;
}

/**
 * Refuses new calls and waits until the calls running, those parked for a client's
 * answers and every closer's work are done, or `graceMs` has passed (see
 * `McpToolServer.drain`).
 */
export async function drainServer(parts: ServerParts, graceMs: number): Promise<void> {
  const { host, scale } = parts;
  host.calls.refuseNew();
  await scale
    ?.drain()
    .catch((error: unknown) => host.report('mcp: scale-out: marking draining failed', error));
  const deadline = Date.now() + graceMs;
  while (!quiet(parts) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
}

function quiet({ host, closers }: ServerParts): boolean {
  const { calls, trips } = host;
  return calls.size === 0 && trips.parked === 0 && [...closers].every((c) => c.quiet?.() ?? true);
}

/**
 * Stops the calls, lets their answers go out for at most `graceMs`, then closes every
 * closer and connection and ends every session, the tasks and the scale-out (see
 * `McpToolServer.close` for the order a client sees).
 */
export async function closeServer(parts: ServerParts, graceMs: number): Promise<void> {
  const { host, closers, connections, sessions, scale } = parts;
  const open = [...sessions];
  const deadline = Date.now() + graceMs;
  const calls = host.calls;
  calls.stop();
  host.trips.stopAll(calls.signal.reason);
  host.tasks.stopAll('mcp: the server shut down while the task ran');
  await bounded(calls.settled(), deadline - Date.now());
  // The answers go out before the transports close.
  const draining = [...closers].flatMap((closer) => closer.drain?.() ?? []);
  await bounded(Promise.allSettled(draining), deadline - Date.now());
  // A call's tool has settled, its answer is on its way to the transport: the SDK
  // hands it over within the microtasks that follow, whatever their number. The
  // timers module's own setImmediate: a test's fake clock replaces the global one.
  await new Promise<void>((resolve) => realSetImmediate(resolve));
  const closing: Promise<void>[] = [];
  for (const closer of closers) closing.push(closer.close());
  for (const server of connections.servers) closing.push(server.close());
  await Promise.allSettled(closing);
  // What a connection that has not said it closed still follows is stopped with it.
  host.follows.close();
  // Whichever way each transport closed, every session's listeners have run when this returns.
  await Promise.all([...open, ...sessions].map((session) => session.close()));
  await host.tasks.close();
  await scale?.close();
}
