/**
 * A server's answer longer than our client reads over stdio: that call fails saying so,
 * and the connection goes on. The SDK's client alone closed the connection, and every
 * later call failed as "connection closed". The server is the SDK's own `McpServer`,
 * which sends a result of any size, started as a host starts one.
 */
import { join } from 'node:path';
import { createContext, outputText, type Tool } from 'agenttool';
import { connectMcp, DEFAULT_STDIO_MESSAGE_BYTES, type RemoteTools } from 'agenttool/mcp';

const ROOT = join(__dirname, '..', '..', '..');

/** An SDK `McpServer` over stdio whose `text` tool answers with `bytes` letters. */
const SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
const server = new McpServer({ name: 'sized', version: '1.0.0' });
server.registerTool(
  'text',
  { description: 'Answers with that many letters', inputSchema: z.object({ bytes: z.number() }) },
  async ({ bytes }) => ({ content: [{ type: 'text', text: 'b'.repeat(bytes) }] }),
);
await server.connect(new StdioServerTransport());
`;

function connect(maxMessageBytes?: number): Promise<RemoteTools> {
  return connectMcp({
    transport: {
      command: process.execPath,
      args: ['--input-type=module', '-e', SERVER],
      cwd: ROOT,
      stderr: 'ignore',
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    },
    protocol: 'legacy',
  });
}

async function text(remote: RemoteTools, bytes: number): Promise<string> {
  const tool = remote.tools().find((t) => t.name === 'text') as Tool;
  const call = { id: 'call_1', args: JSON.stringify({ bytes }) };
  const result = await tool.execute(call, createContext({ call }));
  const output = result.output;
  return typeof output === 'string' ? output : JSON.stringify(output);
}

test('an answer over 10 MiB fails its call with both sizes; the next call is answered on the same connection', async () => {
  expect(DEFAULT_STDIO_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
  const remote = await connect();
  try {
    const pid = (remote.session.transport as { pid?: number | null } | undefined)?.pid;
    await expect(text(remote, 11 * 1024 * 1024)).rejects.toThrow(
      /^mcp: call "text": Message too large: the server's answer was 1153\d{4} bytes, over the limit of 10485760 bytes this client reads over stdio$/,
    );
    expect(await text(remote, 5)).toBe('bbbbb');
    // Just under the limit, read whole.
    expect((await text(remote, 10 * 1024 * 1024 - 200)).length).toBe(10 * 1024 * 1024 - 200);
    expect((remote.session.transport as { pid?: number | null } | undefined)?.pid).toBe(pid);
  } finally {
    await remote.close();
  }
}, 30_000);

test('maxMessageBytes sets the limit, and must be a positive whole number of bytes', async () => {
  const remote = await connect(4096);
  try {
    await expect(text(remote, 5000)).rejects.toThrow(/over the limit of 4096 bytes/);
    expect(await text(remote, 3000)).toBe('b'.repeat(3000));
  } finally {
    await remote.close();
  }
  for (const bad of [0, -1, 2.5]) {
    await expect(connect(bad)).rejects.toThrow(
      `mcp: connect: maxMessageBytes must be a positive whole number of bytes, got ${bad}`,
    );
  }
}, 30_000);

/**
 * The script of a server speaking newline-delimited JSON-RPC by hand, so that it can send
 * what no SDK sends: it answers `initialize` and `tools/list` (one tool, `echo`), and a
 * `tools/call` by `call` (script text with `message`, `id` (the call's id as JSON),
 * `send(message)` and `write(line)` in scope).
 */
/**
 * A raw server over stdio, as a host starts one, with `maxMessageBytes` when given, and
 * a call timeout far longer than a test's own: a call left waiting shows as a hang.
 */
function connectRaw(server: string, maxMessageBytes?: number): Promise<RemoteTools> {
  return connectMcp({
    transport: {
      command: process.execPath,
      args: ['-e', server],
      stderr: 'ignore',
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    },
    protocol: 'legacy',
    callTimeout: 600_000,
  });
}

/** What a call of `tool` with `kind` came to: `answered <text>`, or its error's message. */
function outcomeOf(tool: Tool): (kind: string) => Promise<string> {
  return async (kind) => {
    const call = { id: 'call_1', args: JSON.stringify({ kind }) };
    return Promise.resolve(tool.execute(call, createContext({ call }))).then(
      (result) => `answered ${outputText(result.output)}`,
      (error: Error) => error.message,
    );
  };
}

function rawServer(call: string): string {
  return `
const { createInterface } = require('node:readline');
const write = (text) => process.stdout.write(text + '\\n');
const send = (message) => write(JSON.stringify(message));
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const id = JSON.stringify(message.id);
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: {
      protocolVersion: message.params.protocolVersion, capabilities: { tools: {} },
      serverInfo: { name: 'raw', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: message.id, result: { tools: [
      { name: 'echo', inputSchema: { type: 'object' } }] } });
  } else if (message.method === 'tools/call') {
    ${call}
  } else if (message.method !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no' } });
  }
});
`;
}

/**
 * On `tools/call`, a request of the server's own, too long to read, under the same id as
 * the call (each side counts its ids from 0, so they meet), then the call's answer. The
 * call's `kind` argument says where the request's members are: `ends` (the id and the
 * method first), `method-middle` (the id first, the method between long members),
 * `middle` (both between long members).
 */
const OVERSIZED_REQUEST_SERVER = rawServer(`
    const padding = 'p'.repeat(8000);
    const params = '{"messages":[],"maxTokens":1,"padding":"' + padding + '"}';
    const kind = message.params.arguments.kind;
    if (kind === 'method-middle') {
      write('{"jsonrpc":"2.0","id":' + id + ',"params":' + params +
        ',"method":"sampling/createMessage","after":"' + padding + '"}');
    } else if (kind === 'middle') {
      write('{"params":' + params + ',"id":' + id +
        ',"method":"sampling/createMessage","jsonrpc":"2.0","after":"' + padding + '"}');
    } else {
      send({ jsonrpc: '2.0', id: message.id, method: 'sampling/createMessage',
        params: { messages: [], maxTokens: 1, padding } });
    }
    // Later, so that the client has read all of the request first.
    setTimeout(() => send({ jsonrpc: '2.0', id: message.id, result: {
      content: [{ type: 'text', text: 'answered' }] } }), 200);`);

test("a server's request too long to read, under a call's id, does not fail that call", async () => {
  const remote = await connectMcp({
    transport: {
      command: process.execPath,
      args: ['-e', OVERSIZED_REQUEST_SERVER],
      stderr: 'ignore',
      maxMessageBytes: 4096,
    },
    protocol: 'legacy',
  });
  try {
    const tool = remote.tools()[0] as Tool;
    for (const kind of ['ends', 'method-middle', 'middle']) {
      const call = { id: 'call_1', args: JSON.stringify({ kind }) };
      const result = await tool.execute(call, createContext({ call }));
      expect(result.output).toBe('answered');
    }
  } finally {
    await remote.close();
  }
});

/**
 * A call answered with a line too long to read whose `id` is neither among its first
 * members nor its last, laid out as the call's `kind` says (with ids and methods in
 * nested objects and strings beside it, and escaped quotes before it); `fine` is answered
 * in a few bytes.
 */
const MIDDLE_ID_SERVER = rawServer(`
    const big = JSON.stringify({ content: [{ type: 'text', text: 'm'.repeat(8000) }] });
    const kind = message.params.arguments.kind;
    const tricky = JSON.stringify({ note: '"id":999,"method":"x"}', nested: { id: 998, method: 'y' } });
    if (kind === 'extra') {
      write('{"jsonrpc":"2.0","result":' + big + ',"id":' + id + ',"extra":"' + 'e'.repeat(8000) + '"}');
    } else if (kind === 'both-sides') {
      write('{"result":' + big + ',"id":' + id + ',"jsonrpc":"2.0","more":' + tricky + ',"pad":' + big + '}');
    } else if (kind === 'escapes') {
      write('{"jsonrpc":"2.0","result":{"text":"\\\\\\\\\\\\"' + 'q'.repeat(8000) + '\\\\\\\\"},"id" : ' + id + ' ,"tail":[' + big + ',{"id":1}]}');
    } else {
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } });
    }`);

test('an answer too long to read whose id sits in its middle fails its call at once; the next call is answered', async () => {
  const remote = await connectRaw(MIDDLE_ID_SERVER, 4096);
  try {
    const tool = remote.tools()[0] as Tool;
    const outcome = outcomeOf(tool);
    for (const kind of ['extra', 'both-sides', 'escapes']) {
      expect(await outcome(kind)).toMatch(
        /^mcp: call "echo": Message too large: the server's answer was \d+ bytes, over the limit of 4096 bytes this client reads over stdio$/,
      );
    }
    expect(await outcome('fine')).toBe('answered ok');
  } finally {
    await remote.close();
  }
}, 20_000);

/**
 * On `stall`, an answer whose id comes first (as Go's and Python's SDKs write one) that
 * passes the limit and then stops without its newline, as a server stuck writing it
 * would; the next call's answer first ends that line.
 */
const STALLED_ANSWER_SERVER = rawServer(`
    if (message.params.arguments.kind === 'stall') {
      process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"' + 's'.repeat(20000));
      globalThis.stalled = true;
    } else {
      if (globalThis.stalled) process.stdout.write('"}]}}\\n');
      globalThis.stalled = false;
      send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } });
    }`);

test('an answer whose id comes first fails its call as it passes the limit, not when (if ever) it ends', async () => {
  const remote = await connectRaw(STALLED_ANSWER_SERVER, 4096);
  try {
    const tool = remote.tools()[0] as Tool;
    const outcome = outcomeOf(tool);
    expect(await outcome('stall')).toBe(
      `mcp: call "echo": Message too large: the server's answer passed the limit of 4096 bytes this client reads over stdio`,
    );
    expect(await outcome('fine')).toBe('answered ok');
    expect(await outcome('fine')).toBe('answered ok');
  } finally {
    await remote.close();
  }
}, 20_000);

/** A call answered with what its `kind` names, written as raw text after a log line on stdout. */
const MALFORMED_ANSWER_SERVER = rawServer(`
    write('starting the work (a log line on stdout)');
    const kind = message.params.arguments.kind;
    if (kind === 'nan') write('{"jsonrpc":"2.0","id":' + id + ',"result":NaN}');
    else if (kind === 'nan-middle') write('{"jsonrpc":"2.0","result":NaN,"id":' + id + ',"x":{"id":1}}');
    else if (kind === 'string') write('{"jsonrpc":"2.0","id":' + id + ',"result":"just a string"}');
    else if (kind === 'no-version') write('{"id":' + id + ',"result":{"content":[]}}');
    else send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } });`);

test('an answer that is not JSON, or not JSON-RPC, fails its call saying so; the next call is answered', async () => {
  const remote = await connectRaw(MALFORMED_ANSWER_SERVER);
  try {
    const tool = remote.tools()[0] as Tool;
    const outcome = outcomeOf(tool);
    for (const kind of ['nan', 'nan-middle']) {
      expect(await outcome(kind)).toMatch(
        /^mcp: call "echo": the server's answer could not be read: it is not JSON \(.+\)$/,
      );
    }
    for (const kind of ['string', 'no-version']) {
      expect(await outcome(kind)).toBe(
        `mcp: call "echo": the server's answer could not be read: it is not a JSON-RPC message`,
      );
    }
    expect(await outcome('fine')).toBe('answered ok');
  } finally {
    await remote.close();
  }
});
