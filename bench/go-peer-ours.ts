// A start-up child: our server with the no-op tool on a loopback port; prints its URL.
import { McpToolServer } from 'agenttool/mcp';
import { toolFromInstance } from 'agenttool';
import { decoratedNoop } from './mcp-noop-decorated';

async function main(): Promise<void> {
  const server = new McpToolServer([toolFromInstance(new (decoratedNoop('noop'))())], {
    name: 'agenttool-ts',
    version: '0',
  });
  const listener = await server.listenHttp();
  console.log(JSON.stringify({ kind: 'listening', url: listener.url }));
  // Stops when the bench closes our stdin.
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
