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

/** A JSON-RPC request a scripted server was sent, and how to answer it with a result. */
export interface ScriptedCall {
  readonly message: { readonly id?: unknown; readonly method?: string };
  /** The JSON-RPC response text carrying `value` as the request's result. */
  result(value: unknown): string;
}

/** The headers of a scripted server's JSON answers (its one session, `s1`). */
export const SCRIPTED_JSON = { 'content-type': 'application/json', 'mcp-session-id': 's1' };

/**
 * What a scripted 2025-era MCP server does with a POST: reads the body, answers
 * `initialize` (named `name`) and `tools/list` (one tool, `tool`, taking an object),
 * a notification with 202 and any other request with an empty result; a `tools/call`
 * goes to `onCall`, which answers it as the test asks.
 */
export function scriptedPost(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  names: { readonly name: string; readonly tool: string },
  onCall: (call: ScriptedCall) => void,
): void {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    if (body === '') return void res.writeHead(200).end();
    const message = JSON.parse(body) as ScriptedCall['message'];
    const result = (value: unknown): string =>
      JSON.stringify({ jsonrpc: '2.0', id: message.id, result: value });
    switch (message.method) {
      case 'initialize':
        return void res.writeHead(200, SCRIPTED_JSON).end(
          result({
            protocolVersion: '2025-03-26',
            serverInfo: { name: names.name, version: '1.0.0' },
            capabilities: { tools: {} },
          }),
        );
      case 'tools/list':
        return void res
          .writeHead(200, SCRIPTED_JSON)
          .end(result({ tools: [{ name: names.tool, inputSchema: { type: 'object' } }] }));
      case 'tools/call':
        return onCall({ message, result });
      default:
        if (message.id === undefined) return void res.writeHead(202).end();
        return void res.writeHead(200, SCRIPTED_JSON).end(result({}));
    }
  });
}
