import { type McpToolServer } from './public-api';

/** An MCP transport, as the server (and the client) take one. */
type Transport = Parameters<McpToolServer['connect']>[0];
type Message = Parameters<Transport['send']>[0];

/**
 * One end of a pair of transports in this process: what one end sends, the other
 * receives (held until it starts listening). How a module file's app is served to the
 * command's own client, for the requests that go through MCP (prompts, resources).
 */
export class MemoryTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  #other: MemoryTransport | undefined;
  readonly #queue: Message[] = [];
  #closed = false;

  /** Two ends joined: one for the client, one for the server. */
  static pair(): [MemoryTransport, MemoryTransport] {
    const a = new MemoryTransport();
    const b = new MemoryTransport();
    a.#other = b;
    b.#other = a;
    return [a, b];
  }

  start(): Promise<void> {
    for (let message = this.#queue.shift(); message !== undefined; message = this.#queue.shift()) {
      this.onmessage?.(message);
    }
    return Promise.resolve();
  }

  send(message: Message): Promise<void> {
    const other = this.#other;
    if (other === undefined) return Promise.reject(new Error('mcp: connection closed'));
    if (other.onmessage === undefined) other.#queue.push(message);
    else other.onmessage(message);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const other = this.#other;
    this.#other = undefined;
    try {
      await other?.close();
    } finally {
      this.onclose?.();
    }
  }
}
