import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type McpToolServer } from 'agenttool/mcp';

/** How a test reaches a served set: a connected SDK client and a way to close it. */
export interface Connected {
  readonly client: Client;
  close(): Promise<void>;
}

export type Connect = (
  server: McpToolServer,
  options?: ClientOptions,
  name?: string,
) => Promise<Connected>;

/** An SDK client connected over the in-memory transport pair. */
export const overMemory: Connect = async (server, options, name = 'test-client') => {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name, version: '1.2.3' }, options);
  await client.connect(clientEnd);
  return { client, close: () => client.close() };
};

/** An SDK client connected over Streamable HTTP to a fresh loopback listener. */
export const overHttp: Connect = async (server, options, name = 'test-client') => {
  const listener = await server.listenHttp();
  const transport = new StreamableHTTPClientTransport(new URL(listener.url));
  const client = new Client({ name, version: '1.2.3' }, options);
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
      await listener.close();
    },
  };
};

/** A promise and its resolver, for waiting on an event without sleeping. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
} {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The text of a call result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  const first = content[0];
  if (first?.type !== 'text' || first.text === undefined) throw new Error('no text block first');
  return first.text;
}
