import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What a scripted tool handler gets: the call's params and ways to talk back. */
export interface CallScope {
  readonly params: Record<string, unknown>;
  /** Aborted when the client sends `notifications/cancelled` for this call. */
  readonly cancelled: AbortSignal;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Sends a request to the client and resolves with its result (rejects on an error reply). */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface RawServerOptions {
  tools?: unknown[];
  call?: ((scope: CallScope) => unknown) | undefined;
  capabilities?: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
  instructions?: string;
  /** Replaces the tools/list answer (for pagination and failures). */
  list?: (params: Record<string, unknown>) => unknown;
  /** Answers the requests of other methods, by method (a promise that never settles: no answer). */
  answers?: Record<string, (params: Record<string, unknown>) => unknown>;
}

/**
 * A scripted MCP server speaking raw JSON-RPC over an in-memory transport, so a test
 * controls every byte the client sees (shapes the SDK's own server would refuse,
 * notifications at exact moments) and sees every message the client sends.
 */
export class RawServer {
  readonly clientTransport: InMemoryTransport;
  private readonly transport: InMemoryTransport;
  /** Every message the client sent, in order. */
  readonly received: JSONRPCMessage[] = [];
  /** The capabilities the client declared in `initialize`. */
  clientCapabilities: Record<string, unknown> | undefined;
  clientInfo: Record<string, unknown> | undefined;
  tools: unknown[];
  private readonly calls = new Map<string | number, AbortController>();
  private readonly pending = new Map<
    number,
    { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  private nextId = 1000;
  private messageListeners: ((m: JSONRPCMessage) => void)[] = [];

  constructor(private readonly options: RawServerOptions = {}) {
    [this.clientTransport, this.transport] = InMemoryTransport.createLinkedPair();
    this.tools = options.tools ?? [];
    this.transport.onmessage = (message) => this.onMessage(message);
  }

  async start(): Promise<this> {
    await this.transport.start();
    return this;
  }

  /** Resolves with the first message from the client that matches. */
  waitFor(match: (m: JSONRPCMessage) => boolean): Promise<JSONRPCMessage> {
    const found = this.received.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => {
      const listener = (m: JSONRPCMessage): void => {
        if (!match(m)) return;
        this.messageListeners = this.messageListeners.filter((l) => l !== listener);
        resolve(m);
      };
      this.messageListeners.push(listener);
    });
  }

  send(message: Record<string, unknown>): Promise<void> {
    return this.transport.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  }

  notify(method: string, params: Record<string, unknown> = {}): Promise<void> {
    return this.send({ method, params });
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * Pings the client. The client handles messages in order, so once the pong is back it
   * has handled every notification sent before the ping.
   */
  async ping(): Promise<void> {
    await this.request('ping', {});
  }

  /** How many requests of this method the client sent. */
  count(method: string): number {
    return this.received.filter((m) => (m as { method?: string }).method === method).length;
  }

  private onMessage(message: JSONRPCMessage): void {
    this.received.push(message);
    for (const l of [...this.messageListeners]) l(message);
    const m = message as Record<string, unknown>;
    const method = m['method'];
    const id = m['id'] as string | number | undefined;
    const params = (m['params'] ?? {}) as Record<string, unknown>;
    if (method === undefined && typeof id === 'number') {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      if (m['error'] !== undefined) waiter?.reject(new Error(JSON.stringify(m['error'])));
      else waiter?.resolve(m['result'] as Record<string, unknown>);
      return;
    }
    if (method === 'notifications/cancelled') {
      this.calls.get(params['requestId'] as string | number)?.abort();
      return;
    }
    if (id === undefined) return;
    void this.answer(id, method as string, params);
  }

  private async answer(
    id: string | number,
    method: string,
    params: Record<string, unknown>,
  ): Promise<void> {
    try {
      const result = await this.handle(id, method, params);
      await this.send({ id, result });
    } catch (error) {
      await this.send({ id, error: { code: -32603, message: (error as Error).message } });
    }
  }

  private async handle(
    id: string | number,
    method: string,
    params: Record<string, unknown>,
  ): Promise<unknown> {
    switch (method) {
      case 'initialize':
        this.clientCapabilities = params['capabilities'] as Record<string, unknown>;
        this.clientInfo = params['clientInfo'] as Record<string, unknown>;
        return {
          protocolVersion: params['protocolVersion'],
          capabilities: this.options.capabilities ?? { tools: { listChanged: true } },
          serverInfo: this.options.serverInfo ?? { name: 'raw', version: '1.0.0' },
          ...(this.options.instructions !== undefined
            ? { instructions: this.options.instructions }
            : {}),
        };
      case 'tools/list':
        return this.options.list !== undefined ? this.options.list(params) : { tools: this.tools };
      case 'tools/call': {
        const controller = new AbortController();
        this.calls.set(id, controller);
        try {
          return await (this.options.call ?? (() => ({ content: [] })))({
            params,
            cancelled: controller.signal,
            notify: (m, p) => this.notify(m, p),
            request: (m, p) => this.request(m, p),
          });
        } finally {
          this.calls.delete(id);
        }
      }
      default: {
        const answer = this.options.answers?.[method];
        if (answer === undefined) throw new Error(`method not found: ${method}`);
        return answer(params);
      }
    }
  }

  private request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ id, method, params }).catch(reject);
    });
  }
}

/** A promise with its resolve function, for synchronising with a scripted server. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
