import type * as http from 'node:http';
import { type AddressInfo } from 'node:net';
import { createContext } from 'agenttool';
import { type RemoteTools } from 'agenttool/mcp';

/**
 * `server` listening on a free port of 127.0.0.1, with the URL of its MCP endpoint and
 * a close that ends its kept-alive connections too.
 */
export async function listenOnLoopback(
  server: http.Server,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let calls = 0;

/** Calls the remote's first tool without arguments; its output as text (parts as JSON). */
export async function callFirstTool(remote: RemoteTools): Promise<string> {
  const call = { id: `call_${++calls}`, args: '{}' };
  const result = await remote.tools()[0]!.execute(call, createContext({ call }));
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}
