import { InMemoryTransport } from '@modelcontextprotocol/server';
import { connectMcp, type McpToolServer, type RemoteTools } from 'agenttool/mcp';

/**
 * Our client connected to `server` over the SDK's in-memory pair, in the 2025 era and
 * without waiting for list notifications.
 */
export async function connectInMemory(server: McpToolServer): Promise<RemoteTools> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectMcp({ transport: clientSide, protocol: 'legacy', notificationGrace: 0 });
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
