/**
 * What a hostile or broken server lists and says, as the client takes it: a tool whose
 * name MCP does not accept is left out with a warning (a host's tool set, and the model
 * API behind it, would refuse it), and what the server sends is quoted in errors and
 * warnings cut to a few hundred characters (8 KiB of what it says in its own words),
 * however long it is.
 */
import { createContext } from 'agenttool';
import { connectMcp, McpServers, type RemoteTools } from 'agenttool/mcp';
import { RawServer, type RawServerOptions } from './raw-server';

/** Far longer than any message should be: 2 MB of one character. */
const HUGE = 2_000_000;

async function failure(options: RawServerOptions): Promise<{ code: string; message: string }> {
  const server = await new RawServer(options).start();
  const error = await connectMcp({ transport: server.clientTransport }).then(
    async (remote) => {
      await remote.close();
      throw new Error('connected');
    },
    (e: unknown) => e as { code: string; message: string },
  );
  return { code: error.code, message: error.message };
}

/** The process warnings of `code` given while `run` runs. */
async function warningsOf(code: string, run: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const spy = jest.spyOn(process, 'emitWarning').mockImplementation((warning, options) => {
    if (typeof options === 'object' && options.code === code) warnings.push(String(warning));
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return warnings;
}

async function callOnce(remote: RemoteTools, name: string): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name)!;
  const call = { id: 'call_1', args: '{}' };
  return Promise.resolve(tool.execute(call, createContext({ call }))).then(
    () => '',
    (e: unknown) => (e as Error).message,
  );
}

describe('connectMcp: tool names MCP does not accept', () => {
  it('leaves out each such tool with one warning, and the rest are listed', async () => {
    const odd = ['read file', 'two\nlines', 'bell\u0007', 'é', 'x'.repeat(129), 'y'.repeat(HUGE)];
    const server = await new RawServer({
      tools: [
        ...odd.map((name) => ({ name, inputSchema: { type: 'object' } })),
        { name: 'ok', inputSchema: { type: 'object' } },
        { name: 'a.b-c_D9', inputSchema: { type: 'object' } },
        { name: 'z'.repeat(128), inputSchema: { type: 'object' } },
      ],
    }).start();
    let remote: RemoteTools | undefined;
    const warnings = await warningsOf('AGENTTOOL_MCP_INVALID_TOOL_NAME', async () => {
      remote = await connectMcp({ transport: server.clientTransport });
      await remote.refresh();
    });
    try {
      const names = ['ok', 'a.b-c_D9', 'z'.repeat(128)];
      expect(remote!.tools().map((t) => t.name)).toEqual(names);
      expect(warnings.slice(0, 5)).toEqual([
        'mcp: list tools: tool "read file" is left out: "read file" is not a tool name MCP accepts: " " is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "read_file"',
        'mcp: list tools: tool "two\\nlines" is left out: "two\\nlines" is not a tool name MCP accepts: "\\n" is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "two_lines"',
        'mcp: list tools: tool "bell\\a" is left out: "bell\\a" is not a tool name MCP accepts: "\\a" is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "bell"',
        'mcp: list tools: tool "é" is left out: "é" is not a tool name MCP accepts: "é" is not allowed (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it',
        `mcp: list tools: tool "${'x'.repeat(129)}" is left out: "${'x'.repeat(129)}" is not a tool name MCP accepts: it is 129 characters long (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "${'x'.repeat(128)}"`,
      ]);
      // Once each, however often listed; the name of 2 MB quoted in a few hundred characters.
      expect(warnings).toHaveLength(6);
      const long = `"${'y'.repeat(300)}"… [${HUGE - 300} more characters]`;
      expect(warnings[5]).toBe(
        `mcp: list tools: tool ${long} is left out: ${long} is not a tool name MCP accepts: it is ${HUGE} characters long (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "${'y'.repeat(128)}"`,
      );
    } finally {
      await remote?.close();
    }
  });

  it('checks the local name, the prefix included', async () => {
    const server = await new RawServer({
      tools: [
        { name: 'a'.repeat(120), inputSchema: { type: 'object' } },
        { name: 'b'.repeat(121), inputSchema: { type: 'object' } },
      ],
    }).start();
    let remote: RemoteTools | undefined;
    const warnings = await warningsOf('AGENTTOOL_MCP_INVALID_TOOL_NAME', async () => {
      remote = await connectMcp({ transport: server.clientTransport, prefix: 'github' });
    });
    try {
      // 'github__' and 120 characters make 128: served; with 121, 129: left out.
      expect(remote!.tools().map((t) => t.name)).toEqual([`github__${'a'.repeat(120)}`]);
      const local = `github__${'b'.repeat(121)}`;
      expect(warnings).toEqual([
        `mcp: list tools: tool "${local}" is left out: "${local}" is not a tool name MCP accepts: it is 129 characters long (only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "${local.slice(0, 128)}"`,
      ]);
    } finally {
      await remote?.close();
    }
  });

  it("keeps them as the server names them when asked to (invalidToolNames: 'keep')", async () => {
    const server = await new RawServer({
      tools: [
        { name: 'read file', inputSchema: { type: 'object' } },
        { name: 'ok', inputSchema: { type: 'object' } },
      ],
    }).start();
    let remote: RemoteTools | undefined;
    const warnings = await warningsOf('AGENTTOOL_MCP_INVALID_TOOL_NAME', async () => {
      remote = await connectMcp({ transport: server.clientTransport, invalidToolNames: 'keep' });
    });
    try {
      expect(remote!.tools().map((t) => t.name)).toEqual(['read file', 'ok']);
      expect(warnings).toEqual([]);
    } finally {
      await remote?.close();
    }
  });

  it("lets `serve --config`'s tools section rename such a tool to a name it serves", async () => {
    const server = await new RawServer({
      tools: [
        { name: 'read file', inputSchema: { type: 'object' } },
        { name: 'grep it', inputSchema: { type: 'object' } },
      ],
    }).start();
    const warnings: string[] = [];
    const servers = await McpServers.start(
      {
        mcpServers: {
          odd: {
            transport: () => server.clientTransport,
            protocol: 'legacy',
            tools: { transform: { 'read file': { rename: 'read_file' } } },
          },
        },
      },
      { onWarning: (m) => warnings.push(m), primitives: false },
    );
    try {
      expect(servers.tools.map((t) => t.name)).toEqual(['odd__read_file']);
      // The one not renamed is left out by compose, as a name it cannot serve.
      expect(warnings).toEqual([
        expect.stringContaining(
          'its tool "grep it" is left out: "odd__grep it" is not a tool name MCP accepts',
        ),
      ]);
    } finally {
      await servers.close();
    }
  });

  it('refuses an invalidToolNames that is neither choice, before connecting', async () => {
    const server = await new RawServer({ tools: [] }).start();
    await expect(
      connectMcp({
        transport: server.clientTransport,
        invalidToolNames: 'drop' as unknown as 'keep',
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'mcp: connect: invalidToolNames must be "leave out" or "keep", got "drop"',
    });
  });
});

describe("connectMcp: a server's values in errors and warnings are cut short", () => {
  const cutMark = /… \[\d+ more characters\]/;

  it('fails the listing for a nameless tool, quoting it in a few hundred characters and saying how much was left out', async () => {
    const tool = { description: 'x'.repeat(HUGE), inputSchema: { type: 'object' } };
    const { code, message } = await failure({ tools: [tool] });
    expect(code).toBe('PROTOCOL');
    const json = JSON.stringify(tool);
    expect(message).toBe(
      `mcp: list tools: a tool has no name: ${json.slice(0, 300)}… [${json.length - 300} more characters]`,
    );
    // The listing fails, as the Go binding's does, whatever stands for no name.
    for (const name of [undefined, '', 5]) {
      const short = await failure({ tools: [{ name, inputSchema: {} }] });
      expect(short.code).toBe('PROTOCOL');
      expect(short.message).toMatch(/^mcp: list tools: a tool has no name: \{/);
    }
  });

  it('quotes a nameless tool that nests too deep for JSON.stringify, cut short', async () => {
    let deep: unknown = {};
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    const { code, message } = await failure({ tools: [{ inputSchema: deep }] });
    expect(code).toBe('PROTOCOL');
    expect(message).toMatch(/^mcp: list tools: a tool has no name: \{"inputSchema":\{"d":\{"d":/);
    expect(message).toMatch(cutMark);
    expect(message.length).toBeLessThan(400);
  });

  it('quotes an input schema that is no object, a listed tool that is none and a cursor, cut short', async () => {
    const cases: [RawServerOptions, RegExp][] = [
      [
        { tools: [{ name: 'bad', inputSchema: 'y'.repeat(HUGE) }] },
        /^mcp: tool "bad": input schema: expected a JSON object, got "y{299}… \[1999702 more characters\]$/,
      ],
      [
        { tools: ['t'.repeat(HUGE)] },
        /^mcp: list tools: a listed tool is not an object: "t{299}… \[1999702 more characters\]$/,
      ],
      [
        { list: () => ({ tools: [], nextCursor: 'c'.repeat(HUGE) }) },
        /^mcp: list tools: the server repeated the cursor "c{300}"… \[1999700 more characters\]$/,
      ],
    ];
    for (const [options, expected] of cases) {
      const { code, message } = await failure(options);
      expect(code).toBe('PROTOCOL');
      expect(message).toMatch(expected);
    }
  });

  it("cuts what a server says in its own words at 8 KiB: a listing's error, a call's", async () => {
    const { code, message } = await failure({
      list: () => {
        throw new Error('E'.repeat(HUGE));
      },
    });
    expect(code).toBe('CONNECTION');
    expect(message).toMatch(/^mcp: list tools: E+… \[\d+ more characters\]$/);
    expect(message.length).toBeLessThan(8300);

    const server = await new RawServer({
      tools: [
        { name: 'fails', inputSchema: { type: 'object' } },
        {
          name: 'typed',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
        },
        { name: 'odd', inputSchema: { type: 'object' } },
      ],
      call: ({ params }) => {
        if (params['name'] === 'fails') throw new Error('F'.repeat(HUGE));
        if (params['name'] === 'typed')
          return { content: [], structuredContent: { n: 'n'.repeat(HUGE) } };
        return { content: 'c'.repeat(HUGE) };
      },
    }).start();
    const remote = await connectMcp({ transport: server.clientTransport });
    try {
      const failed = await callOnce(remote, 'fails');
      expect(failed).toMatch(/^mcp: call "fails": F+… \[\d+ more characters\]$/);
      expect(failed.length).toBeLessThan(8300);
      const typed = await callOnce(remote, 'typed');
      expect(typed).toMatch(
        /^mcp: call "typed": the structured content does not fit the tool's output schema: n: expected number, got "n+/,
      );
      expect(typed).toMatch(cutMark);
      expect(typed.length).toBeLessThan(8300);
      expect(await callOnce(remote, 'odd')).toMatch(
        /^mcp: the result's content is not a list of blocks: "c{299}… \[1999702 more characters\]$/,
      );
    } finally {
      await remote.close();
    }
  });

  it("quotes a prompt listing's repeated cursor and the server's own name, cut short", async () => {
    const server = await new RawServer({
      capabilities: { prompts: {} },
      serverInfo: { name: 's'.repeat(HUGE), version: '1' },
      answers: { 'prompts/list': () => ({ prompts: [], nextCursor: 'p'.repeat(HUGE) }) },
    }).start();
    const remote = await connectMcp({ transport: server.clientTransport });
    try {
      const message = await remote.listPrompts().then(
        () => '',
        (e: unknown) => (e as Error).message,
      );
      expect(message).toMatch(
        /^mcp: prompts\/list on server "s{300}"… \[1999700 more characters\]: the server repeated the cursor "p{300}"… \[1999700 more characters\] after 2 pages \(it would page forever\)$/,
      );
    } finally {
      await remote.close();
    }
  });
});
