import {
  AgentToolError,
  CancelledError,
  createContext,
  ProgressInfo,
  type Result,
  type Tool,
  ValidationError,
  annotationsOf,
  confinedBy,
  isCloser,
  isSequential,
  isStrict,
  replayOf,
  resourceOf,
} from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { deferred, RawServer, type RawServerOptions } from './raw-server';

const echoTool = {
  name: 'echo',
  description: 'Echoes its message',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
};

async function connect(
  options: RawServerOptions,
  extra: Omit<Parameters<typeof connectMcp>[0], 'transport'> = {},
): Promise<{ server: RawServer; remote: RemoteTools }> {
  const server = await new RawServer(options).start();
  const remote = await connectMcp({ transport: server.clientTransport, ...extra });
  return { server, remote };
}

function find(remote: RemoteTools, name: string): Tool {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined)
    throw new Error(
      `no tool ${name} in ${remote
        .tools()
        .map((t) => t.name)
        .join(',')}`,
    );
  return tool;
}

function run(
  tool: Tool,
  args: string,
  init: Parameters<typeof createContext>[0] = {},
): Promise<Result> {
  const call = init.call ?? { id: 'call_1', args };
  return Promise.resolve(tool.execute(call, createContext({ ...init, call })));
}

describe('connectMcp: listing', () => {
  it('lists the tools with their schemas verbatim, never strict, replay unknown, not closers', async () => {
    const { remote } = await connect({
      tools: [echoTool, { name: 'bare', description: 'No input schema' }],
    });
    expect(remote.tools().map((t) => t.name)).toEqual(['echo', 'bare']);
    const echo = find(remote, 'echo');
    expect(echo.description).toBe('Echoes its message');
    expect(echo.parameters).toEqual(echoTool.inputSchema);
    expect(find(remote, 'bare').parameters).toEqual({ type: 'object' });
    for (const t of remote.tools()) {
      expect(isStrict(t)).toBe(false);
      expect(isCloser(t)).toBe(false);
      expect(isSequential(t)).toBe(false);
      expect(resourceOf(t)).toBe('');
      expect(replayOf(t, '{}', createContext())).toBe('unknown');
      expect(annotationsOf(t)).toBeUndefined();
    }
    await remote.close();
  });

  it('reads the server info and instructions, and introduces itself as agenttool', async () => {
    const { server, remote } = await connect({
      serverInfo: { name: 'srv', version: '2.1.0' },
      instructions: 'Use echo to echo.',
    });
    expect(remote.serverInfo).toEqual({ name: 'srv', version: '2.1.0' });
    expect(remote.instructions).toBe('Use echo to echo.');
    expect(server.clientInfo).toEqual({ name: 'agenttool', version: '0' });
    expect(server.clientCapabilities?.['elicitation']).toBeUndefined();
    await remote.close();
  });

  it('gives empty instructions when the server has none, and takes a client info', async () => {
    const { server, remote } = await connect({}, { clientInfo: { name: 'host', version: '9' } });
    expect(remote.instructions).toBe('');
    expect(server.clientInfo).toEqual({ name: 'host', version: '9' });
    await remote.close();
  });

  it('follows pagination cursors', async () => {
    const { remote } = await connect({
      list: (params) =>
        params['cursor'] === undefined
          ? { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'p2' }
          : { tools: [{ name: 'b', inputSchema: { type: 'object' } }] },
    });
    expect(remote.tools().map((t) => t.name)).toEqual(['a', 'b']);
    await remote.close();
  });

  it('keeps the first of tools listed under one name, and warns once', async () => {
    const warnings: string[] = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      if (String(warning).includes('more than once')) warnings.push(String(warning));
    });
    try {
      const { remote } = await connect({
        tools: [
          { name: 'dup', description: 'first', inputSchema: { type: 'object' } },
          { name: 'other', inputSchema: { type: 'object' } },
          { name: 'dup', description: 'second', inputSchema: { type: 'object' } },
          { name: 'dup', description: 'third', inputSchema: { type: 'object' } },
        ],
      });
      expect(remote.tools().map((t) => [t.name, t.description])).toEqual([
        ['dup', 'first'],
        ['other', ''],
      ]);
      await remote.refresh();
      expect(remote.tools()).toHaveLength(2);
      expect(warnings).toEqual([
        'mcp: list tools: tool "dup" is listed more than once; the first is kept',
      ]);
      await remote.close();
    } finally {
      spy.mockRestore();
    }
  });

  it('leaves out a tool whose definition nests too deep to send on, and warns', async () => {
    const warnings: string[] = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      if (String(warning).includes('nests deeper')) warnings.push(String(warning));
    });
    try {
      let deep: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { x: deep } };
      const { remote } = await connect({
        tools: [{ name: 'deep', inputSchema: deep }, echoTool],
      });
      expect(remote.tools().map((t) => t.name)).toEqual(['echo']);
      expect(warnings).toEqual([
        'mcp: list tools: tool "deep" is left out: its definition nests deeper than 1000 levels',
      ]);
      await remote.close();
    } finally {
      spy.mockRestore();
    }
  });

  it('fails to connect when the first listing fails, and says so', async () => {
    const server = await new RawServer({
      list: () => {
        throw new Error('list broke');
      },
    }).start();
    await expect(connectMcp({ transport: server.clientTransport })).rejects.toMatchObject({
      code: 'CONNECTION',
      message: 'mcp: list tools: list broke',
    });
  });

  it('rejects a tool whose input schema is not an object', async () => {
    const server = await new RawServer({ tools: [{ name: 'bad', inputSchema: 5 }] }).start();
    await expect(connectMcp({ transport: server.clientTransport })).rejects.toMatchObject({
      code: 'PROTOCOL',
      message: 'mcp: tool "bad": input schema: expected a JSON object, got 5',
    });
  });

  it('words each listing failure once', async () => {
    const failures: [RawServerOptions, string][] = [
      [
        { tools: [{ inputSchema: { type: 'object' } }] },
        'mcp: list tools: a tool has no name: {"inputSchema":{"type":"object"}}',
      ],
      [{ list: () => ({ tools: 'none' }) }, 'mcp: list tools: the result has no "tools" array'],
      [{ tools: [5] }, 'mcp: list tools: a listed tool is not an object: 5'],
      [
        { list: () => ({ tools: [], nextCursor: 'again' }) },
        'mcp: list tools: the server repeated the cursor "again"',
      ],
      [
        // A new cursor every page, without end.
        {
          list: (params) => ({
            tools: [],
            nextCursor: `${typeof params['cursor'] === 'string' ? params['cursor'] : ''}x`,
          }),
        },
        'mcp: list tools: the server still had more after 1000 pages (it may page forever)',
      ],
      [
        {
          list: (params) => ({
            tools: Array.from({ length: 60_000 }, (_, i) => ({ name: `t${i}`, inputSchema: {} })),
            ...(params['cursor'] === undefined ? { nextCursor: 'two' } : {}),
          }),
        },
        'mcp: list tools: the server listed more than 100000 tools',
      ],
      [
        // 1 MiB a page, pages without end: the bound is met on the 17th.
        {
          list: (params) => {
            const at = Number(params['cursor'] ?? '0');
            return {
              tools: [{ name: `t${at}`, description: 'x'.repeat(1024 * 1024), inputSchema: {} }],
              nextCursor: String(at + 1),
            };
          },
        },
        'mcp: list tools: the server listed more than 16777216 bytes of tools',
      ],
    ];
    for (const [options, message] of failures) {
      const server = await new RawServer(options).start();
      await expect(connectMcp({ transport: server.clientTransport })).rejects.toMatchObject({
        code: 'PROTOCOL',
        message,
      });
    }
  });

  it('reads a null input schema as none', async () => {
    const { remote } = await connect({ tools: [{ name: 'n', inputSchema: null }] });
    expect(find(remote, 'n').parameters).toEqual({ type: 'object' });
    await remote.close();
  });

  it('fails to connect, saying why, when the command cannot start', async () => {
    await expect(
      connectMcp({
        transport: { command: '/nonexistent/agenttool-no-such-server', stderr: 'ignore' },
      }),
    ).rejects.toThrow(/^mcp: connect: .*ENOENT/);
  });

  it('refuses a transport it cannot use, with how to fix it', async () => {
    await expect(connectMcp({ transport: { nope: 1 } as never })).rejects.toThrow(
      /transport must be \{ command, args\?, env\? \}/,
    );
    await expect(connectMcp({ transport: { url: 'not a url' } })).rejects.toThrow(
      /"not a url" is not a URL/,
    );
  });
});

describe('connectMcp: local declarations', () => {
  const tools = ['a', 'b', 'c'].map((name) => ({ name, inputSchema: { type: 'object' } }));

  it('prefixes names and matches declarations by either spelling, last wins', async () => {
    const { remote } = await connect(
      { tools },
      {
        prefix: 'srv',
        sequential: ['a'],
        resources: [
          { resource: 'r1', tools: ['srv__b', 'c'] },
          { resource: 'r2', tools: ['b'] },
        ],
        confined: [
          { by: 'sandbox', tools: ['a', 'srv__b'] },
          { by: null, tools: ['srv__a'] },
          { by: () => ({ confined: true, by: 'per-call' }), tools: ['c'] },
        ],
      },
    );
    expect(remote.tools().map((t) => t.name)).toEqual(['srv__a', 'srv__b', 'srv__c']);
    expect(remote.localName('a')).toBe('srv__a');
    const [a, b, c] = ['srv__a', 'srv__b', 'srv__c'].map((n) => find(remote, n)) as [
      Tool,
      Tool,
      Tool,
    ];
    expect([isSequential(a), isSequential(b), isSequential(c)]).toEqual([true, false, false]);
    expect([resourceOf(b), resourceOf(c)]).toEqual(['r2', 'r1']);
    const ctx = createContext();
    expect(confinedBy(a, '{}', ctx)).toEqual({ confined: false, by: '' });
    expect(confinedBy(b, '{}', ctx)).toEqual({ confined: true, by: 'sandbox' });
    expect(confinedBy(c, '{}', ctx)).toEqual({ confined: true, by: 'per-call' });
    await remote.close();
  });

  it('refuses malformed declarations at connect', async () => {
    const server = await new RawServer({ tools }).start();
    await expect(
      connectMcp({
        transport: server.clientTransport,
        resources: [{ resource: '', tools: ['a'] }],
      }),
    ).rejects.toThrow('resources[0].resource must be a non-empty string');
    await expect(
      connectMcp({ transport: server.clientTransport, notificationGrace: -1 }),
    ).rejects.toThrow('notificationGrace must be a number of milliseconds >= 0');
    // Bad options are INVALID_OPTIONS: the tools themselves are fine.
    await expect(
      connectMcp({ transport: server.clientTransport, callTimeout: -5 }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(
      connectMcp({ transport: server.clientTransport, sequential: [''] }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('maps annotations with MCP defaults, the tool title winning', async () => {
    const { remote } = await connect({
      tools: [
        { name: 'none', inputSchema: { type: 'object' } },
        { name: 'empty', inputSchema: { type: 'object' }, annotations: {} },
        {
          name: 'full',
          title: 'Own title',
          inputSchema: { type: 'object' },
          annotations: {
            title: 'Block title',
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false,
          },
        },
        { name: 'blockTitle', inputSchema: { type: 'object' }, annotations: { title: 'B' } },
      ],
    });
    expect(annotationsOf(find(remote, 'none'))).toBeUndefined();
    expect(annotationsOf(find(remote, 'empty'))).toEqual({
      title: '',
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(annotationsOf(find(remote, 'full'))).toEqual({
      title: 'Own title',
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    expect(annotationsOf(find(remote, 'blockTitle'))?.title).toBe('B');
    await remote.close();
  });
});

describe('connectMcp: calls', () => {
  it('calls by the remote name with the arguments, empty arguments as {}', async () => {
    const seen: unknown[] = [];
    const { remote } = await connect(
      {
        tools: [echoTool],
        call: ({ params }) => {
          seen.push(params);
          return { content: [{ type: 'text', text: 'hi' }] };
        },
      },
      { prefix: 'p' },
    );
    const echo = find(remote, 'p__echo');
    await expect(run(echo, '{"message":"hi"}')).resolves.toEqual({
      output: 'hi',
      details: { content: [{ type: 'text', text: 'hi' }] },
    });
    await run(echo, '');
    expect(seen).toEqual([
      { name: 'echo', arguments: { message: 'hi' } },
      { name: 'echo', arguments: {} },
    ]);
    await remote.close();
  });

  it('refuses arguments that are not a JSON object before sending', async () => {
    const { server, remote } = await connect({ tools: [echoTool] });
    const echo = find(remote, 'echo');
    await expect(run(echo, '[1]')).rejects.toThrow(
      new ValidationError('', 'expected object, got array'),
    );
    await expect(run(echo, '{')).rejects.toThrow(/^invalid arguments: not valid JSON/);
    expect(server.received.some((m) => (m as { method?: string }).method === 'tools/call')).toBe(
      false,
    );
    await remote.close();
  });

  it("holds a successful result's structured content to the tool's output schema", async () => {
    const weather = {
      name: 'weather',
      inputSchema: { type: 'object' },
      outputSchema: {
        type: 'object',
        properties: { celsius: { type: 'number' } },
        required: ['celsius'],
        additionalProperties: false,
      },
    };
    const answers: unknown[] = [
      { content: [{ type: 'text', text: '{"celsius":21}' }], structuredContent: { celsius: 21 } },
      { content: [{ type: 'text', text: 'warm' }], structuredContent: { celsius: 'warm' } },
      { content: [{ type: 'text', text: 'x' }], structuredContent: { celsius: 1, evil: true } },
      { content: [{ type: 'text', text: 'no structure' }] },
      { content: [{ type: 'text', text: 'the sensor is down' }], isError: true },
    ];
    const { remote } = await connect({ tools: [weather], call: () => answers.shift() });
    const tool = find(remote, 'weather');
    await expect(run(tool, '{}')).resolves.toMatchObject({ structured: { celsius: 21 } });
    const where = `mcp: call "weather": `;
    const mismatch = await run(tool, '{}').catch((error: unknown) => error);
    expect(mismatch).toMatchObject({ code: 'PROTOCOL' });
    expect((mismatch as Error).message).toBe(
      `${where}the structured content does not fit the tool's output schema: celsius: expected number, got "warm"`,
    );
    await expect(run(tool, '{}')).rejects.toThrow(
      `${where}the structured content does not fit the tool's output schema: `,
    );
    await expect(run(tool, '{}')).rejects.toThrow(
      `${where}the tool declares an output schema, but the result has no structured content`,
    );
    // A tool error needs no structured content: it reads as before.
    await expect(run(tool, '{}')).rejects.toThrow(/^the sensor is down$/);
    await remote.close();
  });

  it("checks a server's output schema in bounded time, whatever the schema holds", async () => {
    // A pattern that backtracks exponentially in JavaScript's engine (a minute and a
    // half for this text), a chain of references that doubles at each step (2^40
    // subschemas), and uniqueItems over many objects (compared pairwise).
    const defs: Record<string, unknown> = { d0: { type: 'object' } };
    for (let i = 1; i <= 40; i++) {
      defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    }
    const object = (properties: Record<string, unknown>, extra = {}) => ({
      type: 'object',
      properties,
      ...extra,
    });
    const tools = [
      {
        name: 'pattern',
        inputSchema: { type: 'object' },
        outputSchema: object({ s: { type: 'string', pattern: '^(a+)+$' } }),
      },
      {
        name: 'doubling',
        inputSchema: { type: 'object' },
        outputSchema: object({ x: { $ref: '#/$defs/d40' } }, { $defs: defs }),
      },
      {
        name: 'unique',
        inputSchema: { type: 'object' },
        outputSchema: object({ a: { type: 'array', uniqueItems: true } }),
      },
    ];
    const many = Array.from({ length: 100_000 }, (_, i) => ({ i: [i] }));
    const answers: Record<string, unknown[]> = {
      pattern: [{ s: `${'a'.repeat(40)}!` }, { s: 'aaaa' }],
      doubling: [{ x: {} }],
      unique: [{ a: many }, { a: [{ i: 1 }, { i: 1 }] }],
    };
    const { remote } = await connect({
      tools,
      call: ({ params }) => {
        const structured = answers[params['name'] as string]!.shift();
        return { content: [{ type: 'text', text: 'x' }], structuredContent: structured };
      },
    });
    // Matched in linear time (RE2): refused, saying why.
    await expect(run(find(remote, 'pattern'), '{}')).rejects.toThrow(
      'pattern: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" does not match regular expression "^(a+)+$"',
    );
    await expect(run(find(remote, 'pattern'), '{}')).resolves.toMatchObject({
      structured: { s: 'aaaa' },
    });
    // Past the bound: not checked, the content passed on.
    await expect(run(find(remote, 'doubling'), '{}')).resolves.toMatchObject({
      structured: { x: {} },
    });
    await expect(run(find(remote, 'unique'), '{}')).resolves.toMatchObject({
      structured: { a: many },
    });
    // Within it, checked.
    await expect(run(find(remote, 'unique'), '{}')).rejects.toThrow(
      'uniqueItems: array items 1 and 0 are equal',
    );
    await remote.close();
  });

  it('turns isError into a thrown error with the text and the raw result as details', async () => {
    const raw = { content: [{ type: 'text', text: 'disk on fire' }], isError: true };
    const { remote } = await connect({ tools: [echoTool], call: () => raw });
    const error = await run(find(remote, 'echo'), '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('disk on fire');
    expect((error as { details: unknown }).details).toEqual(raw);
    await remote.close();
  });

  it('reports a JSON-RPC error as a protocol error naming the call', async () => {
    const { remote } = await connect({
      tools: [echoTool],
      call: () => {
        throw new Error('no such thing');
      },
    });
    const error = (await run(find(remote, 'echo'), '{}').catch(
      (e: unknown) => e,
    )) as AgentToolError;
    expect(error).toBeInstanceOf(AgentToolError);
    expect(error.code).toBe('PROTOCOL');
    expect(error.message).toMatch(/^mcp: call "echo": .*no such thing/);
    await remote.close();
  });
});

describe('connectMcp: progress', () => {
  it('sends an agenttool-<n> token and delivers each notification as ProgressInfo', async () => {
    const tokens: unknown[] = [];
    const { remote } = await connect({
      tools: [echoTool],
      call: async ({ params, notify }) => {
        const token = (params['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
        tokens.push(token);
        if (token !== undefined) {
          await notify('notifications/progress', {
            progressToken: token,
            progress: 1,
            total: 2,
            message: 'half way',
          });
          await notify('notifications/progress', { progressToken: token, progress: 2 });
          // Not ours: ignored.
          await notify('notifications/progress', { progressToken: 7, progress: 9 });
        }
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const echo = find(remote, 'echo');
    const updates: Result[] = [];
    const onUpdate = (r: Result): void => void updates.push(r);
    await expect(
      run(echo, '{}', { call: { id: 'c1', args: '{}', onUpdate } }),
    ).resolves.toMatchObject({ output: 'done' });
    await run(echo, '{}', { call: { id: 'c2', args: '{}', onUpdate } });
    await run(echo, '{}');
    expect(tokens).toEqual(['agenttool-1', 'agenttool-2', undefined]);
    expect(updates.slice(0, 2)).toEqual([
      { output: 'half way', details: new ProgressInfo(1, 2, 'half way') },
      { output: '', details: new ProgressInfo(2, 0, '') },
    ]);
    expect(updates).toHaveLength(4);
    await remote.close();
  });
});

describe('connectMcp: cancellation and close', () => {
  it('aborting the signal ends the call at once and tells the server', async () => {
    const started = deferred();
    const serverSawCancel = deferred();
    const { server, remote } = await connect({
      tools: [echoTool],
      call: ({ cancelled }) =>
        new Promise((resolve) => {
          cancelled.addEventListener('abort', () => {
            serverSawCancel.resolve();
            resolve({ content: [] });
          });
          started.resolve();
        }),
    });
    const controller = new AbortController();
    const pending = run(find(remote, 'echo'), '{}', { signal: controller.signal });
    await started.promise;
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    await serverSawCancel.promise;
    expect(
      server.received.some((m) => (m as { method?: string }).method === 'notifications/cancelled'),
    ).toBe(true);
    await remote.close();
  });

  it('a call with an aborted signal is not sent', async () => {
    const { server, remote } = await connect({ tools: [echoTool] });
    const controller = new AbortController();
    controller.abort();
    await expect(
      run(find(remote, 'echo'), '{}', { signal: controller.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(server.received.some((m) => (m as { method?: string }).method === 'tools/call')).toBe(
      false,
    );
    await remote.close();
  });

  it('close ends calls in flight and later calls with "connection closed"', async () => {
    const started = deferred();
    const { remote } = await connect({
      tools: [echoTool],
      call: () => {
        started.resolve();
        return new Promise(() => undefined); // never answers
      },
    });
    const echo = find(remote, 'echo');
    const pending = run(echo, '{}');
    await started.promise;
    await remote.close();
    const closed = 'mcp: call "echo": mcp: connection closed';
    await expect(pending).rejects.toThrow(closed);
    await expect(run(echo, '{}')).rejects.toThrow(closed);
    await expect(pending.catch((e: AgentToolError) => e.code)).resolves.toBe('CONNECTION');
    await expect(remote.refresh()).rejects.toThrow('mcp: connection closed');
    await remote.close(); // twice is fine
  });

  it('a server that goes away closes the connection the same way', async () => {
    const started = deferred();
    const { server, remote } = await connect({
      tools: [echoTool],
      call: () => {
        started.resolve();
        return new Promise(() => undefined);
      },
    });
    const echo = find(remote, 'echo');
    const pending = run(echo, '{}');
    await started.promise;
    await server.close();
    await expect(pending).rejects.toThrow('mcp: call "echo": mcp: connection closed');
    await expect(run(echo, '{}')).rejects.toThrow('mcp: call "echo": mcp: connection closed');
  });
});
