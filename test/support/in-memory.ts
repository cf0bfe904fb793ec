import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  type ConnectOptions,
  connectMcp,
  type McpToolServer,
  type RemoteTools,
} from 'agenttool/mcp';

/** What a test may add to {@link connectInMemory}'s connection; its transport and era are fixed. */
export type InMemoryOptions = Omit<
  Partial<ConnectOptions>,
  'transport' | 'protocol' | 'notificationGrace'
>;

/**
 * Our client connected to `server` over the SDK's in-memory pair, in the 2025 era and
 * without waiting for list notifications; `options` add to that (they cannot change it).
 */
export async function connectInMemory(
  server: McpToolServer,
  options: InMemoryOptions = {},
): Promise<RemoteTools> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectMcp({
    ...options,
    transport: clientSide,
    protocol: 'legacy',
    notificationGrace: 0,
  });
}

/** Runs `body` with {@link connectInMemory}'s client, then closes the client and `server`. */
export async function withInMemoryClient(
  server: McpToolServer,
  body: (remote: RemoteTools) => Promise<void>,
): Promise<void> {
  const remote = await connectInMemory(server);
  try {
    await body(remote);
  } finally {
    await remote.close();
    await server.close();
  }
}
