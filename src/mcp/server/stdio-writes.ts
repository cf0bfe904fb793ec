import type { Writable } from 'node:stream';

/**
 * The largest message a stdio connection writes by default: 10 MiB less 64 KiB. The
 * SDK's stdio client buffers at most 10 MiB of what it has not parsed yet and closes
 * the connection past that; a message's last piece can come in one pipe read (64 KiB)
 * with the start of the next one, so a message this long or shorter is always read.
 */
export const DEFAULT_STDIO_SENT_MESSAGE_BYTES = 10 * 1024 * 1024 - 64 * 1024;

/**
 * The most bytes of answers a stdio connection holds unwritten, its client not having
 * read them, before its session's `whenAnswersRead` makes a large result wait: 16 MiB.
 */
export const STDIO_UNREAD_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * A session's `whenAnswersRead` for a connection that writes to `output`: undefined
 * while `output` holds at most `limit` bytes not yet written (its reader not having read
 * them; its own high-water mark where that is more, below which it never says 'drain'),
 * else a promise that resolves once it has written them all ('drain'), or it has
 * finished, closed or failed (nothing more will pile up), and rejects with the signal's
 * reason when that aborts first. The waiters share one listener of each event.
 */
export function answersReadOf(
  output: Writable,
  limit = STDIO_UNREAD_ANSWER_BYTES,
): (signal?: AbortSignal) => Promise<void> | undefined {
  const bound = Math.max(limit, output.writableHighWaterMark);
  const caughtUp = (): boolean =>
    output.writableLength <= bound || output.destroyed || output.writableFinished;
  const waiting = new Set<() => void>();
  let listening = false;
  const wakeAll = (): void => {
    listening = false;
    output.off('drain', drained);
    for (const event of ENDS) output.off(event, wakeAll);
    const woken = [...waiting];
    waiting.clear();
    for (const resolve of woken) resolve();
  };
  const drained = (): void => {
    if (caughtUp()) wakeAll();
  };
  return (signal) => {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (caughtUp()) return undefined;
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = (): void => {
        waiting.delete(done);
        reject(signal?.reason as Error);
      };
      if (!listening) {
        listening = true;
        output.on('drain', drained);
        for (const event of ENDS) output.on(event, wakeAll);
      }
      waiting.add(done);
      signal?.addEventListener('abort', abort, { once: true });
    });
  };
}

/** What ends a stream's writing: after them, nothing more piles up. */
const ENDS = ['finish', 'close', 'error'] as const;

/** A message too long to write, and what went out instead. */
export interface OversizedWrite {
  /** Its length in bytes, without its newline. */
  readonly bytes: number;
  /** What it was: a tool call's result, another response, or a message left unsent. */
  readonly outcome: 'tool error' | 'error response' | 'not sent';
  /** The message's id or method, to say which one it was. */
  readonly which: string;
}

type Message = Record<string, unknown>;

/**
 * `output` as a stdio transport writes to it (one message and its newline per write),
 * with every message longer than `limit` bytes replaced: a tool call's result by a tool
 * error that gives its size and asks for less (the model can act on that), another
 * response by a JSON-RPC error (-32000); a request or notification is not written.
 * `onOversized` is told of each. A client that meets a message longer than it buffers
 * closes the connection (the SDK's does, at 10 MiB), which ends the session and
 * whatever state it held: one result too large would cost all of it.
 *
 * Everything but `write` is the stream's own, so the transport's listeners and
 * back-pressure are the stream's.
 */
export function boundedWrites(
  output: Writable,
  limit: number,
  onOversized: (write: OversizedWrite) => void,
): Writable {
  const forward = output.write.bind(output) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    // A UTF-8 string has at most 3 bytes per UTF-16 unit: most messages need no count.
    if (typeof chunk !== 'string' || chunk.length * 3 <= limit) return forward(chunk, ...rest);
    const line = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
    const bytes = Buffer.byteLength(line);
    if (bytes <= limit) return forward(chunk, ...rest);
    const { replacement, outcome, which } = replace(line, bytes, limit);
    onOversized({ bytes, outcome, which });
    if (replacement !== undefined) return forward(`${JSON.stringify(replacement)}\n`, ...rest);
    // Nothing to write: the writer's callback, if any, still hears back.
    const callback = rest.find((value) => typeof value === 'function') as
      ((error?: Error | null) => void) | undefined;
    if (callback !== undefined) process.nextTick(callback);
    return true;
  };
  const bound = new WeakMap<object, unknown>();
  return new Proxy(output, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(value);
      if (method === undefined) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(value, method);
      }
      return method;
    },
  });
}

function replace(
  line: string,
  bytes: number,
  limit: number,
): { replacement: Message | undefined; outcome: OversizedWrite['outcome']; which: string } {
  let message: Message;
  try {
    message = JSON.parse(line) as Message;
  } catch {
    return { replacement: undefined, outcome: 'not sent', which: 'a message that is not JSON' };
  }
  const id = message['id'];
  const said = `${bytes} bytes as JSON, more than the ${limit} bytes this server sends in one message over stdio`;
  if (id === undefined || id === null || (!('result' in message) && !('error' in message))) {
    const method = message['method'];
    const which = typeof method === 'string' ? method : 'a message';
    return { replacement: undefined, outcome: 'not sent', which };
  }
  const which = `the response to ${JSON.stringify(id)}`;
  const result = message['result'];
  if (isObject(result) && Array.isArray(result['content'])) {
    const text = `The result of this call is ${said}; it was not sent. Ask for less at a time (a smaller part of a file, a narrower query, or output cut down with head, grep or the like).`;
    const toolError: Message = { content: [{ type: 'text', text }], isError: true };
    // The 2026-07-28 era says which kind of result this is.
    if (typeof result['resultType'] === 'string') toolError['resultType'] = result['resultType'];
    return {
      replacement: { jsonrpc: '2.0', id, result: toolError },
      outcome: 'tool error',
      which,
    };
  }
  return {
    replacement: {
      jsonrpc: '2.0',
      id,
      error: { code: -32000, message: `Response too large: it is ${said}` },
    },
    outcome: 'error response',
    which,
  };
}

function isObject(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
