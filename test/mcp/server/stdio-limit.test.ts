// A stdio message longer than the server reads: the connection goes on. The SDK's stdio
// transport closed it (and so ended the session, a shell's state with it) when one
// message outgrew its read buffer.
import { PassThrough } from 'node:stream';
import { ReadBuffer } from '@modelcontextprotocol/client';
import { MAX_JSON_DEPTH, McpResource, mcpResourceFromInstance, newTool } from 'agenttool';
import {
  DEFAULT_STDIO_MESSAGE_BYTES,
  DEFAULT_STDIO_SENT_MESSAGE_BYTES,
  serveTools,
} from 'agenttool/mcp';

const LIMIT = 2000;
const SENT_LIMIT = 1500;

/** A resource whose text is as long as the last read asked for. */
@McpResource({ uri: 'test://long', name: 'long', mimeType: 'text/plain' })
class LongResource {
  static size = 0;
  read() {
    return 'r'.repeat(LongResource.size);
  }
}

interface Pipe {
  /** Writes `text` to the server's stdin in pieces of `piece` characters. */
  write(text: string, piece?: number): void;
  /** The next message the server writes. */
  next(): Promise<Record<string, unknown>>;
  readonly errors: unknown[];
  close(): Promise<void>;
}

async function served(
  capabilities: Record<string, unknown> = {},
  maxMessageBytes = LIMIT,
): Promise<Pipe> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const errors: unknown[] = [];
  const server = serveTools(
    {
      tools: [
        newTool({ name: 'echo', execute: (call) => ({ output: call.args }) }),
        // Puts a question to the client (elicitation/create) and says how it ended.
        newTool({
          name: 'asks',
          execute: async (_call, ctx) => {
            try {
              return { output: `answered ${(await ctx.ask({ message: 'Go?' })).action}` };
            } catch (error) {
              return { output: `ask failed: ${String(error)}` };
            }
          },
        }),
        // Control characters: each is six bytes as JSON (\u0001).
        newTool({
          name: 'controls',
          execute: (call) => {
            const { count } = JSON.parse(call.args) as { count: number };
            return { output: '\u0001'.repeat(count) };
          },
        }),
      ],
      resources: [mcpResourceFromInstance(new LongResource())],
    },
    { onError: (_message, error) => errors.push(error) },
  );
  const connection = await server.serveStdio({
    stdin,
    stdout,
    maxMessageBytes,
    maxSentMessageBytes: SENT_LIMIT,
  });
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  const queued: Record<string, unknown>[] = [];
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      const taker = waiting.shift();
      if (taker === undefined) queued.push(message);
      else taker(message);
    }
  });
  const pipe: Pipe = {
    write(text, piece = text.length) {
      for (let at = 0; at < text.length; at += piece) stdin.write(text.slice(at, at + piece));
    },
    next: () => {
      const message = queued.shift();
      return message === undefined
        ? new Promise((resolve) => waiting.push(resolve))
        : Promise.resolve(message);
    },
    errors,
    close: async () => {
      await connection.close();
      await server.close();
    },
  };
  pipe.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities,
        clientInfo: { name: 'pipe', version: '0' },
      },
    }) + '\n',
  );
  expect((await pipe.next()).id).toBe(0);
  pipe.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return pipe;
}

/** A tools/call of echo whose text makes the line `bytes` long, `id` where the SDK's client puts it (last). */
function call(id: number | string, text: string): string {
  return JSON.stringify({
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
    jsonrpc: '2.0',
    id,
  });
}

const tooLarge = (bytes: number) =>
  `Message too large: the limit over stdio is ${LIMIT} bytes, and this one had ${bytes}`;

test('a message over the limit is answered with an error for its id, and the connection goes on', async () => {
  const pipe = await served();
  try {
    const big = call(7, 'x'.repeat(5000));
    // In small pieces, as a pipe delivers a long line; a message right after it.
    pipe.write(big + '\n' + call(8, 'small') + '\n', 700);
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: tooLarge(Buffer.byteLength(big)) },
    });
    const answer = await pipe.next();
    expect(answer.id).toBe(8);
    expect(JSON.stringify(answer.result)).toContain('small');
    expect(pipe.errors.map(String)).toEqual([`Error: ${tooLarge(Buffer.byteLength(big))}`]);
  } finally {
    await pipe.close();
  }
});

test('the id is found first in the message too, and a message of the limit itself is read', async () => {
  const pipe = await served();
  try {
    const first = JSON.stringify({
      jsonrpc: '2.0',
      id: 'first-id',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'y'.repeat(3000) } },
    });
    pipe.write(first + '\n');
    expect(await pipe.next()).toMatchObject({ id: 'first-id', error: { code: -32000 } });
    // Exactly LIMIT bytes before the newline: read and answered.
    const base = call(9, '');
    const exact = call(9, 'z'.repeat(LIMIT - Buffer.byteLength(base)));
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    pipe.write(exact + '\n');
    expect(await pipe.next()).toMatchObject({ id: 9, result: { content: [{ type: 'text' }] } });
  } finally {
    await pipe.close();
  }
});

test('the id is found among the middle members too, wherever the method is', async () => {
  const pipe = await served();
  try {
    const middle = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      id: 3,
      params: { name: 'echo', arguments: { text: 'w'.repeat(3000) } },
    });
    pipe.write(middle + '\n' + call(4, 'after') + '\n', 500);
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, message: tooLarge(Buffer.byteLength(middle)) },
    });
    expect((await pipe.next()).id).toBe(4);
  } finally {
    await pipe.close();
  }
});

test('a long message without an id (a notification) is reported, not answered, and the next one is', async () => {
  const pipe = await served();
  try {
    const notification = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'n'.repeat(3000), id: 5 },
    });
    pipe.write(notification + '\n' + call(4, 'after') + '\n');
    expect((await pipe.next()).id).toBe(4);
    expect(pipe.errors.map(String)).toEqual([
      `Error: ${tooLarge(Buffer.byteLength(notification))}`,
    ]);
  } finally {
    await pipe.close();
  }
});

describe("the client's answer to a question of the server", () => {
  const asked = async (): Promise<{ pipe: Pipe; question: Record<string, unknown> }> => {
    const pipe = await served({ elicitation: {} });
    pipe.write(request(11, 'tools/call', { name: 'asks', arguments: {} }));
    const question = await pipe.next();
    expect(question).toMatchObject({ method: 'elicitation/create' });
    return { pipe, question };
  };

  test('too long to read fails the question at once, and is not answered under its id', async () => {
    const { pipe, question } = await asked();
    try {
      const answer = JSON.stringify({
        jsonrpc: '2.0',
        id: question.id,
        result: { action: 'accept', content: { text: 'a'.repeat(3000) } },
      });
      pipe.write(answer + '\n');
      // The next message is the call's result: no error went out under the question's id.
      const result = await pipe.next();
      expect(result.id).toBe(11);
      const text = JSON.stringify(result.result);
      expect(text).toContain('ask failed');
      expect(text).toContain("the client's answer was too large to read");
    } finally {
      await pipe.close();
    }
  });

  test('that is not JSON fails the question at once, and is not answered under its id', async () => {
    const { pipe, question } = await asked();
    try {
      pipe.write(`{"jsonrpc":"2.0","id":${JSON.stringify(question.id)},"result":NaN}\n`);
      const result = await pipe.next();
      expect(result.id).toBe(11);
      const text = JSON.stringify(result.result);
      expect(text).toContain('ask failed');
      expect(text).toContain("the client's answer could not be read");
    } finally {
      await pipe.close();
    }
  });
});

/** A tools/call of `name` with `args`, as a line. */
function request(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
}

describe('a message the server would write over its limit', () => {
  test("a tool call's result becomes a tool error that gives its size, and the connection goes on", async () => {
    const pipe = await served();
    try {
      // 300 control characters are 1,800 bytes as JSON: over 1,500 with the envelope.
      pipe.write(request(5, 'tools/call', { name: 'controls', arguments: { count: 300 } }));
      const answer = await pipe.next();
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: 5, result: { isError: true } });
      const text = (answer['result'] as { content: { text: string }[] }).content[0]?.text ?? '';
      const bytes = Number(/this call is (\d+) bytes as JSON/.exec(text)?.[1]);
      expect(bytes).toBeGreaterThan(1800);
      expect(text).toContain(`more than the ${SENT_LIMIT} bytes this server sends`);
      expect(text).toContain('Ask for less at a time');
      expect(pipe.errors.map(String)).toEqual([
        `Error: the response to 5 was ${bytes} bytes, over the limit of ${SENT_LIMIT} bytes for a message sent over stdio: a tool error went instead`,
      ]);
      // Just under the limit, the same tool's result is sent as it is.
      pipe.write(request(6, 'tools/call', { name: 'controls', arguments: { count: 200 } }));
      const whole = await pipe.next();
      expect(whole).toMatchObject({ id: 6, result: { content: [{ type: 'text' }] } });
      expect(JSON.stringify(whole).length).toBeGreaterThan(1200);
      expect(JSON.stringify(whole).length).toBeLessThanOrEqual(SENT_LIMIT);
    } finally {
      await pipe.close();
    }
  });

  test('another response becomes a JSON-RPC error', async () => {
    const pipe = await served();
    try {
      LongResource.size = 5000;
      pipe.write(request(7, 'resources/read', { uri: 'test://long' }));
      const answer = await pipe.next();
      expect(answer).toMatchObject({
        id: 7,
        error: {
          code: -32000,
          message: expect.stringMatching(
            /^Response too large: it is \d+ bytes as JSON, more than the 1500 bytes/,
          ) as unknown,
        },
      });
      LongResource.size = 10;
      pipe.write(request(8, 'resources/read', { uri: 'test://long' }));
      expect(await pipe.next()).toMatchObject({
        id: 8,
        result: { contents: [{ text: 'r'.repeat(10) }] },
      });
    } finally {
      await pipe.close();
    }
  });

  test("the default lets the SDK's stdio client read every message it allows, however the pipe cuts it", () => {
    expect(DEFAULT_STDIO_SENT_MESSAGE_BYTES).toBe(10 * 1024 * 1024 - 64 * 1024);
    const line = (bytes: number, id: number): string => {
      const base = JSON.stringify({ jsonrpc: '2.0', id, result: { text: '' } });
      return JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: { text: 't'.repeat(bytes - base.length) },
      });
    };
    // The worst a pipe does: the message's last piece in one 64 KiB read with the next
    // message's start, after all the rest of it.
    const readAll = (message: string): number => {
      const stream = Buffer.from(message + '\n' + line(100_000, 2) + '\n');
      const buffer = new ReadBuffer();
      const end = Buffer.byteLength(message) + 1;
      const cut = end - 1;
      buffer.append(stream.subarray(0, cut));
      expect(buffer.readMessage()).toBeNull();
      buffer.append(stream.subarray(cut, cut + 64 * 1024));
      let read = 0;
      while (buffer.readMessage() !== null) read++;
      return read;
    };
    const largest = line(DEFAULT_STDIO_SENT_MESSAGE_BYTES, 1);
    expect(Buffer.byteLength(largest)).toBe(DEFAULT_STDIO_SENT_MESSAGE_BYTES);
    expect(readAll(largest)).toBe(1);
    // A message 10 MiB long is not read so: the client gives up the connection.
    expect(() => readAll(line(10 * 1024 * 1024, 1))).toThrow('ReadBuffer exceeded maximum size');
  });

  test('must be a whole number of bytes of at least 1024', () => {
    const server = serveTools([]);
    for (const bad of [1023, 0, 1.5, Number.NaN]) {
      expect(() => server.serveStdio({ maxSentMessageBytes: bad })).toThrow(
        `serveStdio: maxSentMessageBytes must be a whole number of bytes of at least 1024, got ${String(bad)}`,
      );
    }
  });
});

test('a line that is not JSON is answered with a parse error, for the id its end gives or null; blank lines are not', async () => {
  const pipe = await served();
  try {
    const malformed = '{"jsonrpc":"2.0","method":"tools/call","params":{oops},"id":31}';
    pipe.write(`this is not JSON\n\n\r\n${malformed}\n${call(32, 'fine')}\n`, 9);
    const parseError = {
      code: -32700,
      message: expect.stringMatching(/^Parse error: the message is not JSON \(.+\)$/) as unknown,
    };
    expect(await pipe.next()).toEqual({ jsonrpc: '2.0', id: null, error: parseError });
    expect(await pipe.next()).toEqual({ jsonrpc: '2.0', id: 31, error: parseError });
    const answer = await pipe.next();
    expect(answer.id).toBe(32);
    expect(JSON.stringify(answer.result)).toContain('fine');
    expect(pipe.errors).toHaveLength(2);
  } finally {
    await pipe.close();
  }
});

test('JSON that is no request is answered as an invalid request, for its id or null; a malformed response is only reported', async () => {
  const pipe = await served();
  try {
    const lines = [
      '{"jsonrpc":"2.0","id":41,"method":123}',
      '[1]',
      '{"jsonrpc":"2.0","id":42,"result":5}',
      `{"jsonrpc":"2.0","id":44,"method":false,"pad":"${'x'.repeat(300)}"}`,
      call(43, 'fine'),
    ];
    pipe.write(lines.map((line) => `${line}\n`).join(''));
    const invalid = {
      code: -32600,
      message:
        'Invalid request: not a JSON-RPC 2.0 request or notification (an object with "jsonrpc": "2.0", a string "method", and an "id" for a request)',
    };
    expect(await pipe.next()).toEqual({ jsonrpc: '2.0', id: 41, error: invalid });
    expect(await pipe.next()).toEqual({ jsonrpc: '2.0', id: null, error: invalid });
    expect(await pipe.next()).toEqual({ jsonrpc: '2.0', id: 44, error: invalid });
    const answer = await pipe.next();
    expect(answer.id).toBe(43);
    // Each is reported in a line naming it, not with the schema's error and a stack.
    expect(pipe.errors.map((error) => (error as Error).stack)).toEqual([
      `Error: ${invalid.message}: ${JSON.stringify(lines[0])}`,
      // A batch's members are read one by one: the member is named.
      `Error: ${invalid.message}: "1"`,
      `Error: Invalid response: not a JSON-RPC 2.0 result or error: ${JSON.stringify(lines[2])}`,
      // A long one is quoted in part, its length said.
      `Error: ${invalid.message}: ${JSON.stringify(lines[3]?.slice(0, 200))} (${lines[3]?.length} characters in all)`,
    ]);
  } finally {
    await pipe.close();
  }
});

test('a request well formed but for its params is told which member is wrong', async () => {
  const pipe = await served();
  try {
    const lines = [
      '{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":{"a":1}}}}',
      '{"jsonrpc":"2.0","id":62,"method":"tools/call","params":{"name":"echo","_meta":[]}}',
      '{"jsonrpc":"2.0","id":63,"method":"tools/call","params":"echo"}',
      call(64, 'fine'),
    ];
    pipe.write(lines.map((line) => `${line}\n`).join(''));
    const refused = (id: number, why: string) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: `Invalid request: ${why}` },
    });
    expect(await pipe.next()).toEqual(
      refused(61, 'params._meta.progressToken is neither a string nor a number'),
    );
    expect(await pipe.next()).toEqual(refused(62, 'params._meta is not an object'));
    expect(await pipe.next()).toEqual(refused(63, 'params is neither an object nor an array'));
    expect((await pipe.next()).id).toBe(64);
  } finally {
    await pipe.close();
  }
});

test('a message nested too deep outside the arguments is refused as an invalid request, in a line of report', async () => {
  const pipe = await served({}, 64 * 1024);
  try {
    const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    const initialize = `{"jsonrpc":"2.0","id":51,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${deep}},"clientInfo":{"name":"x","version":"0"}}}`;
    pipe.write(`${initialize}\n${call(52, 'fine')}\n`);
    const tooDeep = `Invalid request: the message nests objects and arrays more than ${MAX_JSON_DEPTH} deep outside a tool's arguments`;
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 51,
      error: { code: -32600, message: tooDeep },
    });
    expect((await pipe.next()).id).toBe(52);
    expect(pipe.errors.map((error) => (error as Error).stack)).toEqual([
      `Error: ${tooDeep}: ${JSON.stringify(initialize.slice(0, 200))} (${initialize.length} characters in all)`,
    ]);
  } finally {
    await pipe.close();
  }
});

test('params the schema refuses are invalid params (-32602), in the 2025 era too', async () => {
  const pipe = await served();
  try {
    pipe.write('{"jsonrpc":"2.0","id":61,"method":"tools/list","params":{"cursor":5}}\n');
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 61,
      error: {
        code: -32602,
        message:
          'Invalid params for tools/list: params.cursor: Invalid input: expected string, received number',
      },
    });
    // A cursor of the right type is still none the server gave: tools/list has no pages.
    pipe.write('{"jsonrpc":"2.0","id":62,"method":"tools/list","params":{"cursor":"junk"}}\n');
    expect(await pipe.next()).toEqual({
      jsonrpc: '2.0',
      id: 62,
      error: {
        code: -32602,
        message:
          'mcp: invalid cursor "junk": tools/list answers every tool at once and gives no nextCursor; send none',
      },
    });
  } finally {
    await pipe.close();
  }
});

describe('a JSON-RPC batch (revision 2025-03-26 requires a receiver to take one)', () => {
  test('each of its requests is answered, one message each, in pieces as a pipe delivers it', async () => {
    const pipe = await served();
    try {
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 10, method: 'ping' },
        {
          jsonrpc: '2.0',
          id: 11,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'batched' } },
        },
      ]);
      pipe.write(batch + '\n' + call(12, 'after') + '\n', 17);
      const answers = [await pipe.next(), await pipe.next(), await pipe.next()];
      expect(answers.map((answer) => answer.id).sort()).toEqual([10, 11, 12]);
      const echoed = answers.find((answer) => answer.id === 11);
      expect(JSON.stringify(echoed?.result)).toContain('batched');
      expect(pipe.errors).toEqual([]);
    } finally {
      await pipe.close();
    }
  });

  test('one over the limit is dropped and reported, and the next message is answered', async () => {
    const pipe = await served();
    try {
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 20, method: 'ping' },
        { jsonrpc: '2.0', id: 21, method: 'ping', params: { _meta: { pad: 'p'.repeat(3000) } } },
      ]);
      pipe.write(batch + '\n' + call(22, 'next') + '\n', 500);
      expect((await pipe.next()).id).toBe(22);
      expect(pipe.errors.map(String)).toEqual([`Error: ${tooLarge(Buffer.byteLength(batch))}`]);
    } finally {
      await pipe.close();
    }
  });
});

test('the limit is 10 MiB unless given, and must be a positive whole number of bytes', () => {
  expect(DEFAULT_STDIO_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
  const server = serveTools([]);
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    expect(() => server.serveStdio({ maxMessageBytes: bad })).toThrow(
      `serveStdio: maxMessageBytes must be a positive whole number of bytes, got ${String(bad)}`,
    );
  }
});

test('once the connection is closed, its stdin is let go of: unpiped and paused', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = serveTools([newTool({ name: 'echo', execute: () => ({ output: 'ok' }) })]);
  const connection = await server.serveStdio({ stdin, stdout });
  expect(stdin.listenerCount('data')).toBe(1);
  await connection.close();
  await server.close();
  expect(stdin.listenerCount('data')).toBe(0);
  expect(stdin.isPaused()).toBe(true);
});
