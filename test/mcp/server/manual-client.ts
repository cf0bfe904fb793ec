import { type PassThrough } from 'node:stream';
import {
  Client,
  type ClientCapabilities,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { type McpToolServer } from 'agenttool/mcp';

/** A 2026-07-28 client that makes its round trips by hand. */
export interface Manual {
  readonly client: Client;
  /** A `tools/call` of `deploy` unless `params` names another tool; questions come back as results. */
  call(params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A 2026-07-28 client that answers questions itself (round trips by hand), over the
 * server's fetch handler in process.
 */
export async function manual(
  server: McpToolServer,
  elicitation: ClientCapabilities['elicitation'] = { form: {}, url: {} },
): Promise<Manual> {
  const handler = server.handler();
  const client = new Client(
    { name: 'manual', version: '1' },
    { capabilities: { elicitation }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return {
    client,
    call: (params = {}) =>
      client.request(
        { method: 'tools/call', params: { name: 'deploy', arguments: {}, ...params } },
        { allowInputRequired: true },
      ),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a result's first content block; '' when it has none. */
export function text(result: Record<string, unknown>): string {
  const content = result.content as { type: string; text: string }[] | undefined;
  return content?.[0]?.text ?? '';
}

/** The key of a result's one question. */
export function onlyKey(result: Record<string, unknown>): string {
  const keys = Object.keys(result.inputRequests ?? {});
  if (keys.length !== 1) throw new Error(`expected one question, got ${keys.join(', ')}`);
  return keys[0]!;
}

/** The client end of a stdio pipe pair, in process. */
export class PipeClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let m = this.#buffer.readMessage(); m !== null; m = this.#buffer.readMessage()) {
        this.onmessage?.(m);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }
}
