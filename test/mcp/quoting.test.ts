/**
 * Names and values in MCP messages are quoted as Go's %q quotes them (`\x01`, `\u2028`),
 * as the Go binding's texts do: mcpserver/mcp.go `mcpserver: tool %q: schema: %w`,
 * mcpclient/mcp.go `mcp: tool %q: input schema: %w` and `mcp: call %q: %w`, and the Go
 * SDK's `unknown tool %q` (mcp/server.go).
 */
import { createContext, newTool } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { RawServer } from './client/raw-server';
import { firstText, overMemory } from './server/helpers';

const odd = 'a\u0001\u2028b';
const quoted = '"a\\x01\\u2028b"';

test('the unknown tool names the tool as %q quotes it', async () => {
  const server = serveTools([]);
  const connected = await overMemory(server);
  try {
    const result = await connected.client.callTool({ name: odd, arguments: {} });
    expect(firstText(result)).toBe(`unknown tool ${quoted}`);
  } finally {
    await connected.close();
    await server.close();
  }
});

test("the server's schema error names the tool as %q quotes it", () => {
  const tool = newTool({
    name: odd,
    parameters: { $schema: 'x' },
    execute: () => ({ output: '' }),
  });
  expect(() => serveTools([tool])).toThrow(
    `mcpserver: tool ${quoted}: schema: unsupported $schema "x": the validator handles draft-07 and 2020-12`,
  );
});

test("the client's input schema error names the tool as %q quotes it", async () => {
  const server = await new RawServer({ tools: [{ name: odd, inputSchema: 5 }] }).start();
  // Kept as named (a name MCP does not accept is otherwise left out, with a warning).
  await expect(
    connectMcp({ transport: server.clientTransport, invalidToolNames: 'keep' }),
  ).rejects.toThrow(`mcp: tool ${quoted}: input schema: expected a JSON object, got 5`);
});

describe("a call its context ends reads Go's ctx.Err() (the Go SDK's CallTool returns it)", () => {
  async function endedCall(reason: unknown): Promise<unknown> {
    const server = await new RawServer({
      tools: [{ name: odd, inputSchema: { type: 'object' } }],
      // Never answers: the call ends only when its context does.
      call: () => new Promise(() => undefined),
    }).start();
    const remote = await connectMcp({
      transport: server.clientTransport,
      protocol: 'legacy',
      invalidToolNames: 'keep',
    });
    try {
      const interrupt = new AbortController();
      const call = { id: 'call_1', args: '{}' };
      const running = Promise.resolve(
        remote.tools()[0]!.execute(call, createContext({ call, signal: interrupt.signal })),
      );
      await server.waitFor((m) => (m as { method?: string }).method === 'tools/call');
      interrupt.abort(reason);
      return await running.then(
        () => undefined,
        (error: unknown) => error,
      );
    } finally {
      await remote.close();
      await server.close();
    }
  }

  test('cancelled: context canceled', async () => {
    const error = await endedCall(new Error('Esc'));
    expect((error as Error).message).toBe(`mcp: call ${quoted}: context canceled`);
  });

  test('timed out: context deadline exceeded', async () => {
    const error = await endedCall(new DOMException('too slow', 'TimeoutError'));
    expect((error as Error).message).toBe(`mcp: call ${quoted}: context deadline exceeded`);
  });
});
