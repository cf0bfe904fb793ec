/**
 * A server's answer longer than our client reads over stdio: that call fails saying so,
 * and the connection goes on. The SDK's client alone closed the connection, and every
 * later call failed as "connection closed". The server is the SDK's own `McpServer`,
 * which sends a result of any size, started as a host starts one.
 */
import { join } from 'node:path';
import { createContext, type Tool } from 'agenttool';
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
