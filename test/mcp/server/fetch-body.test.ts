// The web-standard handler reads a request's body itself, as a framework hands it over
// (a stream of chunks, with or without a Content-Length): whole and decoded once it has
// ended, refused once it crosses maxBodyBytes (without reading on), and refused when the
// bodies being read at once would pass maxBodyBytesInFlight.
import { newTool } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

const server = new McpToolServer({
  tools: [
    newTool({
      name: 'echo',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      execute: (call) => ({ output: (JSON.parse(call.args) as { text: string }).text }),
    }),
  ],
});
afterAll(() => server.close());

function callBody(text: string): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text }, _meta: META },
    }),
  );
}

/**
 * A body that gives `chunks` one per pull, then ends, or, when `endless`, goes on giving
 * the last one; `pulled` counts what was handed over, `cancelled` whether the reader gave up.
 */
function streamed(chunks: Uint8Array[], endless = false) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = chunks[seen.pulled] ?? (endless ? chunks.at(-1) : undefined);
        if (next === undefined) {
          controller.close();
          return;
        }
        seen.pulled++;
        controller.enqueue(next);
      },
      cancel() {
        seen.cancelled = true;
      },
      // Pulled only when read: `pulled` counts what the reader asked for.
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

function post(
  body: Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body,
    duplex: 'half',
  });
}

async function answerOf(
  response: Response,
): Promise<{ text: string | undefined; error: string | undefined }> {
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  const message = JSON.parse(json) as {
    result?: { content: { text: string }[] };
    error?: { message: string };
  };
  return { text: message.result?.content[0]?.text, error: message.error?.message };
}

/** `bytes` cut in `parts` pieces, a cut inside a character's UTF-8 sequence among them. */
function cut(bytes: Uint8Array, parts: number): Uint8Array[] {
  const size = Math.ceil(bytes.length / parts);
  return Array.from({ length: parts }, (_, i) => bytes.subarray(i * size, (i + 1) * size)).filter(
    (part) => part.length > 0,
  );
}

describe('the web-standard handler reading a body', () => {
  test('decodes a body in one chunk', async () => {
    const response = await server.handler().fetch(post(callBody('grüße')));
    expect(response.status).toBe(200);
    expect(await answerOf(response)).toEqual({ text: 'grüße', error: undefined });
  });

  test('joins a streamed body whose chunks split characters', async () => {
    const text = 'grüße, ☃ and 𝄞 '.repeat(40);
    const bytes = callBody(text);
    const chunks = cut(bytes, 7);
    // Some cut falls inside a multi-byte character, or the test proves nothing.
    const splits = chunks.slice(0, -1).some((chunk) => (chunk.at(-1) ?? 0) >= 0x80);
    expect(splits).toBe(true);
    const { body, seen } = streamed(chunks);
    const response = await server.handler().fetch(post(body));
    expect(response.status).toBe(200);
    expect(await answerOf(response)).toEqual({ text, error: undefined });
    expect(seen.pulled).toBe(chunks.length);
  });

  test('answers 400 when the body fails part-way, and reads the next one', async () => {
    const handler = server.handler();
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
        controller.error(new Error('the upload was cut'));
      },
    });
    const response = await handler.fetch(post(failing));
    expect(response.status).toBe(400);
    expect((await answerOf(response)).error).toBe(
      "Bad Request: the request's body could not be read: the upload was cut",
    );
    const next = await handler.fetch(post(callBody('next')));
    expect(await answerOf(next)).toEqual({ text: 'next', error: undefined });
  });

  test('refuses a body declared past the limit without reading it', async () => {
    const { body, seen } = streamed([callBody('x')]);
    const response = await server
      .handler({ maxBodyBytes: 100 })
      .fetch(post(body, { 'content-length': '5000' }));
    expect(response.status).toBe(413);
    expect((await answerOf(response)).error).toBe('Request body too large: the limit is 100 bytes');
    expect(seen.pulled).toBe(0);
  });

  test('refuses an undeclared body once it crosses the limit, and stops reading it', async () => {
    const { body, seen } = streamed([new Uint8Array(64).fill(0x20)], true);
    const response = await server.handler({ maxBodyBytes: 1000 }).fetch(post(body));
    expect(response.status).toBe(413);
    expect((await answerOf(response)).error).toBe(
      'Request body too large: the limit is 1000 bytes',
    );
    expect(seen.cancelled).toBe(true);
    // 15 chunks of 64 bytes fit in 1000; the 16th crosses the line.
    expect(seen.pulled).toBe(16);
  });

  test('refuses a body that would pass the bodies in flight, and gives their bytes back', async () => {
    const handler = server.handler({ maxBodyBytes: 1000, maxBodyBytesInFlight: 1000 });
    // One body being read holds 600 bytes of the budget while it waits for its end.
    let release: (() => void) | undefined;
    const waiting = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(600).fill(0x20));
        release = () => {
          controller.enqueue(callBody('first'));
          controller.close();
        };
      },
    });
    const first = handler.fetch(post(waiting));
    await new Promise((resolve) => setImmediate(resolve));
    const { body, seen } = streamed([new Uint8Array(500).fill(0x20)], true);
    const refused = await handler.fetch(post(body));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await answerOf(refused)).error).toBe(
      'Service unavailable: the server is reading its limit of 1000 bytes of request bodies at once (maxBodyBytesInFlight); try again later',
    );
    expect(seen.cancelled).toBe(true);
    release?.();
    // The first body is whole now: leading spaces are JSON whitespace.
    const answered = await first;
    expect(answered.status).toBe(200);
    expect((await answerOf(answered)).text).toBe('first');
    // Its bytes were given back: a body of the same size is read again.
    const again = await handler.fetch(post(callBody('again')));
    expect(await answerOf(again)).toEqual({ text: 'again', error: undefined });
  });
});
