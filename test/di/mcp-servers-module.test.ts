// McpServersModule: remote MCP servers' tools beside an app's own, in one app, served by
// serveTools(app). The remote is served in this process (over an in-memory pair, or the
// server's fetch handler for 2026-07-28), so nothing starts: what passes through (output
// schemas, structured content, annotations, progress, questions in both eras,
// cancellation), what a lost server does to the list, and the errors. Then
// `McpServers` alone: the remote prompts and resources followed as servers come up late,
// change theirs and go away, and their completions passed through.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import {
  annotationsOf,
  type Call,
  createContext,
  type McpResource,
  type Prompt,
  newTool,
  outputSchemaOf,
  Param,
  ProgressInfo,
  type Result,
  structuredResult,
  taskSupportOf,
  text,
  Tool,
  type ToolContext,
} from 'agenttool';
import { Inject, MCP_SERVERS, McpServersModule, Module, ToolApp } from 'agenttool/di';
import { connectMcp, McpServers, McpToolServer, type RemoteTools, serveTools } from 'agenttool/mcp';
import { until as waitUntil } from '../support/until';

/** What the remote's tools saw. */
const seen = { cancelled: 0, progressTokens: 0 };

function remoteServer(): McpToolServer {
  return serveTools(
    [
      newTool({
        name: 'echo',
        description: 'Echo the text back',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string' }, loud: { type: 'boolean' } },
          required: ['text'],
        },
        annotations: { title: 'Echo', readOnly: true, openWorld: false },
        outputSchema: { type: 'object', properties: { echoed: { type: 'string' } } },
        execute: (call) => {
          const args = JSON.parse(call.args) as { text: string; loud?: boolean };
          return structuredResult({
            echoed: args.loud === true ? args.text.toUpperCase() : args.text,
          });
        },
      }),
      newTool({
        name: 'slow',
        description: 'Reports progress, then waits until released or cancelled',
        execute: async (_call, ctx) => {
          ctx.progress(new ProgressInfo(1, 2, 'half way'));
          await new Promise<void>((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              seen.cancelled++;
              resolve();
            });
          });
          return text('done');
        },
      }),
      newTool({
        name: 'ask',
        description: 'Asks the user for a name',
        // A 2025-era session sees it as the tool's execution.taskSupport.
        taskSupport: 'optional',
        execute: async (_call, ctx) => {
          const answer = await ctx.ask({
            message: 'Your name?',
            schema: {
              type: 'object',
              properties: { name: { type: 'string' } },
              required: ['name'],
            },
          });
          return text(
            answer.action === 'accept'
              ? `hello ${answer.content?.['name'] as string}`
              : answer.action,
          );
        },
      }),
    ],
    { tasks: { pollIntervalMs: 5 }, prompts: [prompt('greet', 'Hello from the remote')] },
  );
}

function prompt(name: string, said: string): Prompt {
  return {
    name,
    description: said,
    get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: said } }] }),
  };
}

function note(uri: string, name: string, body: string): McpResource {
  return { uri, name, mimeType: 'text/plain', read: () => body };
}

class HelloArgs {
  @Param('Who') name!: string;
}

@Tool({ name: 'hello', description: 'Say hello', args: HelloArgs })
class Hello {
  constructor(@Inject(MCP_SERVERS) private readonly servers: Pick<McpServers, 'status'>) {}

  execute(args: HelloArgs): string {
    const up = this.servers.status.filter((s) => s.state === 'up').length;
    return `hello ${args.name} (${up} servers up)`;
  }
}

const warnings: string[] = [];
let remote: McpToolServer;
/** The server ends of the in-memory connections made, newest last. */
const serverEnds: InMemoryTransport[] = [];
/** How many of the next attempts to connect to `mem` fail. */
let refusals = 0;
/** While set, a connection to `mem` is made, and starts once it resolves. */
let held: Promise<void> | undefined;

function memoryTransport() {
  if (refusals > 0) {
    refusals--;
    throw new Error('the remote is not there');
  }
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  serverEnds.push(serverEnd);
  void remote.connect(serverEnd);
  return heldBy(held, clientEnd);
}

/** `transport`, whose start waits for `gate` (when there is one). */
function heldBy(gate: Promise<void> | undefined, transport: InMemoryTransport): InMemoryTransport {
  if (gate === undefined) return transport;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await gate;
    await start();
  };
  return transport;
}

function modernTransport() {
  const handler = remote.handler();
  return new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
}

const config = {
  mcpServers: {
    mem: {
      transport: memoryTransport,
      protocol: 'legacy' as const,
      tools: {
        exclude: ['slow'],
        transform: { echo: { rename: 'shout', fixed: { loud: true }, tags: ['safe'] } },
      },
    },
    modern: { transport: modernTransport, protocol: 'modern' as const },
    gone: {
      transport: () => {
        throw new Error('cannot reach it');
      },
    },
  },
};

@Module({
  imports: [
    McpServersModule.from(config, {
      onWarning: (message) => warnings.push(message),
      retry: { initialDelayMs: 5, maxAttempts: 2 },
    }),
  ],
  tools: [Hello],
})
class AppModule {}

let app: ToolApp;

beforeAll(async () => {
  remote = remoteServer();
  app = await ToolApp.create(AppModule);
});

afterAll(async () => {
  await app?.close();
  await remote?.close();
});

function tool(name: string) {
  const found = app.tools.lookup(name);
  if (found === undefined)
    throw new Error(`no ${name} among ${[...app.tools].map((t) => t.name).join(', ')}`);
  return found;
}

async function run(name: string, args: unknown, init: Parameters<typeof createContext>[0] = {}) {
  const call: Call = { id: 'c', args: JSON.stringify(args), ...(init.call ?? {}) };
  return tool(name).execute(call, createContext({ ...init, call }));
}

describe('McpServersModule', () => {
  it("puts each server's tools, prefixed and transformed, after the app's own", () => {
    expect([...app.tools].map((t) => t.name)).toEqual([
      'hello',
      'mem__shout',
      'mem__ask',
      'modern__echo',
      'modern__slow',
      'modern__ask',
    ]);
    const shout = tool('mem__shout');
    expect(shout.parameters).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(annotationsOf(shout)).toMatchObject({ title: 'Echo', readOnly: true, openWorld: false });
    expect(outputSchemaOf(shout)).toEqual({
      type: 'object',
      properties: { echoed: { type: 'string' } },
    });
    // A 2025-era server declares task support per tool; a 2026-07-28 one decides per call.
    expect(taskSupportOf(tool('mem__ask')).mode).toBe('optional');
    expect(taskSupportOf(tool('modern__ask')).mode).toBe('never');
    expect(taskSupportOf(tool('mem__shout')).mode).toBe('never');
  });

  it('reports the server that cannot start by name, and gives up', async () => {
    await until(() => warnings.some((w) => w.includes('given up')));
    expect(warnings.filter((w) => w.startsWith('mcp server "gone"'))).toEqual([
      'mcp server "gone": could not start: cannot reach it; trying again in 5 ms (attempt 2 of 2)',
      'mcp server "gone": could not start: cannot reach it; given up after 2 attempts in a row (restart to try again)',
    ]);
  });

  it('runs a local tool that reads the servers, and calls with the fixed argument merged', async () => {
    expect((await run('hello', { name: 'Ada' })).output).toBe('hello Ada (2 servers up)');
    const result = await run('mem__shout', { text: 'hi' });
    expect(result.structured).toEqual({ echoed: 'HI' });
    await expect(Promise.resolve(run('mem__shout', { text: 'hi', loud: false }))).rejects.toThrow(
      'invalid arguments: unexpected property "loud": the host fixes its value; leave it out',
    );
  });

  it.each(['mem', 'modern'])(
    'puts a question of the %s server to the call’s elicitor',
    async (name) => {
      const result = await run(
        `${name}__ask`,
        {},
        {
          elicitor: (question) => {
            expect(question.message).toBe('Your name?');
            return { action: 'accept', content: { name: 'Ada' } };
          },
        },
      );
      expect(result.output).toBe('hello Ada');
    },
  );

  it('forwards progress, and a cancel reaches the server', async () => {
    const updates: Result[] = [];
    const controller = new AbortController();
    const before = seen.cancelled;
    const call: Call = { id: 'p', args: '{}', onUpdate: (u) => updates.push(u) };
    const ctx: ToolContext = createContext({ call, signal: controller.signal });
    const running = Promise.resolve(tool('modern__slow').execute(call, ctx));
    await until(() => updates.length > 0);
    expect(updates[0]?.details).toEqual(new ProgressInfo(1, 2, 'half way'));
    controller.abort();
    await expect(running).rejects.toThrow('context canceled');
    await until(() => seen.cancelled > before);
  });

  it('serves the app: a lost server leaves the list, clients hear of it, and it comes back', async () => {
    const server = serveTools(app);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(serverEnd);
    let changes = 0;
    const primitiveChanges: string[] = [];
    const client = await connectMcp({
      transport: clientEnd,
      protocol: 'legacy',
      onToolsChanged: () => void changes++,
      onPrimitivesChanged: (kind) => void primitiveChanges.push(kind),
    });
    let comeBack!: () => void;
    held = new Promise((resolve) => (comeBack = resolve));
    try {
      const names = () => client.tools().map((t) => t.name);
      const prompts = async () => (await client.listPrompts()).map((p) => p.name);
      expect(names()).toContain('mem__shout');
      expect(client.session.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(client.session.getServerCapabilities()?.prompts?.listChanged).toBe(true);
      expect(app.primitivesMayChange).toBe(true);
      expect(await prompts()).toEqual(['mem__greet', 'modern__greet']);
      refusals = 1;
      warnings.length = 0;
      await serverEnds.at(-1)?.close();
      await until(() => !names().includes('mem__shout'));
      expect(names()).toContain('modern__echo');
      expect(warnings[0]).toMatch(
        /^mcp server "mem": connection lost: the connection closed; its 2 tools are withdrawn; connecting again in 5 ms$/,
      );
      // Its prompt leaves too, and the client hears of it.
      await until(() => primitiveChanges.length === 1, 'the prompts to change');
      expect(await prompts()).toEqual(['modern__greet']);
      expect(app.prompts.map((p) => p.name)).toEqual(['modern__greet']);
      // The first retry fails, the second (held until now) brings the server back.
      comeBack();
      await until(() => names().includes('mem__shout'), 'the server to come back');
      expect(warnings.slice(1)).toEqual([
        'mcp server "mem": could not start: the remote is not there; trying again in 5 ms (attempt 2 of 2)',
        'mcp server "mem": connected again: 2 tools',
      ]);
      expect(changes).toBeGreaterThanOrEqual(2);
      await until(() => primitiveChanges.length === 2, 'its prompt to come back');
      expect(primitiveChanges).toEqual(['prompts', 'prompts']);
      expect(await prompts()).toEqual(['mem__greet', 'modern__greet']);
      const got = await client.getPrompt('mem__greet');
      expect(got.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Hello from the remote' } },
      ]);
    } finally {
      held = undefined;
      await client.close();
      await server.close();
    }
  });

  it('runs a remote tool that takes tasks as a task for a client that takes them', async () => {
    const server = serveTools(app, { tasks: { pollIntervalMs: 5 } });
    const handler = server.handler();
    const methods: string[] = [];
    const client = await connectMcp({
      transport: {
        url: 'http://localhost/mcp',
        fetch: async (url, init) => {
          if (typeof init?.body === 'string') methods.push(String(JSON.parse(init.body).method));
          return handler.fetch(new Request(url, init));
        },
      },
      protocol: 'modern',
      elicitation: true,
    });
    try {
      const ask = client.tools().find((t) => t.name === 'mem__ask')!;
      const call: Call = { id: 't', args: '{}' };
      const elicitor = () => ({ action: 'accept' as const, content: { name: 'Ada' } });
      const result = await ask.execute(call, createContext({ call, elicitor }));
      expect(result.output).toBe('hello Ada');
      expect(methods).toContain('tasks/get');
      expect(methods).toContain('tasks/update');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('fails the start naming the entry and the field of a malformed configuration', async () => {
    @Module({
      imports: [
        McpServersModule.from({ mcpServers: { bad: { command: 'x', args: ['ok', 7] } } } as never),
      ],
    })
    class Bad {}
    await expect(ToolApp.create(Bad)).rejects.toThrow(
      'config: mcpServers.bad.args[1]: must be a string',
    );
  });

  it('refuses a server name holding "__" before any server starts: its tools could shadow another\'s', async () => {
    let attempts = 0;
    const transport = () => {
      attempts++;
      throw new Error('not started');
    };
    @Module({
      imports: [McpServersModule.from({ mcpServers: { a: { transport }, a__b: { transport } } })],
    })
    class Shadowing {}
    await expect(ToolApp.create(Shadowing)).rejects.toThrow(
      'config: mcpServers.a__b: the server\'s name prefixes its tools (a__b__<tool>), so it may not hold "__"',
    );
    expect(attempts).toBe(0);
  });
});

describe('McpServers follows the remote prompts and resources', () => {
  const ping = newTool({ name: 'ping', description: 'Pong', execute: () => text('pong') });
  const hello = prompt('hello', 'Hello');
  const noteA = note('note://a', 'a', 'first note');
  /** `late`: its first attempt fails, its second is held until the test lets it start. */
  const late = serveTools([ping], { prompts: [prompt('greet', 'Greetings')] });
  /** `live`, over 2026-07-28: it swaps in new prompts and resources. */
  const live = new McpToolServer(
    { tools: [ping], prompts: [hello], resources: [noteA] },
    {
      listChanged: true,
    },
  );
  let lateAttempts = 0;
  let lateGone = false;
  const lateEnds: InMemoryTransport[] = [];
  let letLateStart!: () => void;
  const lateHeld = new Promise<void>((resolve) => (letLateStart = resolve));
  const lateWarnings: string[] = [];
  let servers: McpServers;
  let composed: McpToolServer;
  /** The composed server's clients, one per era, and the list changes each heard of. */
  const clients: { era: string; remote: RemoteTools; heard: string[] }[] = [];

  beforeAll(async () => {
    const liveHandler = live.handler();
    servers = await McpServers.start(
      {
        mcpServers: {
          late: {
            transport: () => {
              if (++lateAttempts === 1 || lateGone) throw new Error('not there');
              const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
              lateEnds.push(serverEnd);
              void late.connect(serverEnd);
              return heldBy(lateHeld, clientEnd);
            },
            protocol: 'legacy',
          },
          live: {
            transport: () =>
              new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
                fetch: (url, init) => liveHandler.fetch(new Request(url, init)),
              }),
            protocol: 'modern',
          },
        },
      },
      { onWarning: (m) => lateWarnings.push(m), retry: { initialDelayMs: 5, maxAttempts: 3 } },
    );
    composed = serveTools(servers);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await composed.connect(serverEnd);
    const handler = composed.handler();
    for (const era of ['legacy', 'modern'] as const) {
      const heard: string[] = [];
      const remote = await connectMcp({
        transport:
          era === 'legacy'
            ? clientEnd
            : {
                url: 'http://localhost/mcp',
                fetch: (url, init) => handler.fetch(new Request(url, init)),
              },
        protocol: era,
        onPrimitivesChanged: (kind) => void heard.push(kind),
      });
      clients.push({ era, remote, heard });
    }
  });

  afterAll(async () => {
    for (const { remote } of clients) await remote.close();
    await composed?.close();
    await servers?.close();
    await late.close();
    await live.close();
  });

  const promptNames = async (remote: RemoteTools) =>
    (await remote.listPrompts()).map((p) => p.name);

  it('offers prompts and resources that may change, and serves a late server’s once it is up', async () => {
    // Its first attempt failed; its second waits.
    await until(() => servers.status[0]?.state === 'starting', 'the second attempt');
    expect(servers.status.map((s) => [s.name, s.state, s.failures])).toEqual([
      ['late', 'starting', 1],
      ['live', 'up', 0],
    ]);
    expect(lateWarnings).toEqual([
      'mcp server "late": could not start: not there; trying again in 5 ms (attempt 2 of 3)',
    ]);
    for (const { remote, heard } of clients) {
      const offered = remote.session.getServerCapabilities();
      expect(offered?.prompts?.listChanged).toBe(true);
      expect(offered?.resources?.listChanged).toBe(true);
      expect(await promptNames(remote)).toEqual(['live__hello']);
      expect(heard).toEqual([]);
    }
    letLateStart();
    await until(() => clients.every((c) => c.heard.length === 1), 'the clients to hear of it');
    for (const { remote, heard } of clients) {
      expect(heard).toEqual(['prompts']);
      expect(await promptNames(remote)).toEqual(['late__greet', 'live__hello']);
      const got = await remote.getPrompt('late__greet');
      expect(got.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Greetings' } },
      ]);
    }
  });

  it('follows a server that swaps in new prompts and resources', async () => {
    const changes = live.swap({
      tools: [ping],
      prompts: [hello, prompt('bye', 'Goodbye')],
      resources: [noteA, note('note://b', 'b', 'second note')],
    });
    expect(changes).toMatchObject({ promptsChanged: true, resourcesChanged: true });
    await until(() => clients.every((c) => c.heard.length === 3), 'the clients to hear of it');
    for (const { remote, heard } of clients) {
      expect(heard).toEqual(['prompts', 'prompts', 'resources']);
      expect(await promptNames(remote)).toEqual(['late__greet', 'live__hello', 'live__bye']);
      expect((await remote.listResources()).map((r) => [r.uri, r.name])).toEqual([
        ['note://a', 'live__a'],
        ['note://b', 'live__b'],
      ]);
      expect((await remote.readResource('note://b')).contents).toEqual([
        { uri: 'note://b', mimeType: 'text/plain', text: 'second note' },
      ]);
    }
  });

  it('lets the prompts of a server that went away leave', async () => {
    lateGone = true;
    await lateEnds.at(-1)?.close();
    await until(() => clients.every((c) => c.heard.length === 4), 'the clients to hear of it');
    for (const { remote, heard } of clients) {
      expect(heard.at(-1)).toBe('prompts');
      expect(await promptNames(remote)).toEqual(['live__hello', 'live__bye']);
    }
    expect(servers.prompts.map((p) => p.name)).toEqual(['live__hello', 'live__bye']);
  });
});

describe('McpServers passes completions through', () => {
  /** What the completing remote's completers were asked: value and context. */
  const asked: [string, Readonly<Record<string, string>>][] = [];
  const starting = (values: readonly string[]) => (value: string) =>
    values.filter((v) => v.startsWith(value));
  /** `suggests`, over 2026-07-28: its prompt and template complete. */
  const suggests = serveTools([], {
    prompts: [
      {
        name: 'paint',
        arguments: [{ name: 'colour' }, { name: 'size' }],
        get: () => ({ messages: [] }),
        completions: {
          colour: (value, context) => {
            asked.push([value, context]);
            if (value === '!') throw new Error('no colour starts with "!"');
            return starting(['blue', 'black', 'green'])(value);
          },
        },
      },
    ],
    resources: [
      {
        name: 'swatch',
        uriTemplate: 'colour://{name}{?shade}',
        read: () => ({ contents: [] }),
        completions: {
          name: starting(['green', 'grey', 'blue']),
          // Some of its values, and how many there are.
          shade: () => ({ values: ['light', 'dark'], total: 12, hasMore: true }),
        },
      },
    ],
  });
  /** `plain`, over 2025: a prompt with an argument, completed by nothing. */
  const plain = serveTools([], {
    prompts: [{ name: 'paint', arguments: [{ name: 'colour' }], get: () => ({ messages: [] }) }],
  });
  const plainTransport = () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void plain.connect(serverEnd);
    return clientEnd;
  };
  const closers: { close(): Promise<void> }[] = [];
  /** A client of `servers` served, over an in-memory pair (2025) or the fetch handler (2026). */
  const clientOf = async (servers: McpServers, era: 'legacy' | 'modern') => {
    const composed = serveTools(servers);
    closers.push(composed);
    const transport =
      era === 'legacy'
        ? await (async () => {
            const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
            await composed.connect(serverEnd);
            return clientEnd;
          })()
        : {
            url: 'http://localhost/mcp',
            fetch: (url: string | URL, init?: RequestInit) =>
              composed.handler().fetch(new Request(url, init)),
          };
    const client = await connectMcp({ transport, protocol: era });
    closers.push(client);
    return client;
  };
  let servers: McpServers;

  beforeAll(async () => {
    const handler = suggests.handler();
    servers = await McpServers.start({
      mcpServers: {
        suggests: {
          transport: () =>
            new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
              fetch: (url, init) => handler.fetch(new Request(url, init)),
            }),
          protocol: 'modern',
        },
        plain: { transport: plainTransport, protocol: 'legacy' },
      },
    });
    closers.push(servers);
  });

  afterAll(async () => {
    for (const closer of closers.reverse()) await closer.close();
    await suggests.close();
    await plain.close();
  });

  it.each(['legacy', 'modern'] as const)(
    "gives a %s client the remote's values for its prompt and its template",
    async (era) => {
      const client = await clientOf(servers, era);
      expect(client.serverCapabilities.completions).toEqual({});
      asked.length = 0;
      const prompt = { type: 'ref/prompt' as const, name: 'suggests__paint' };
      const colour = await client.complete(
        prompt,
        { name: 'colour', value: 'b' },
        { arguments: { size: 'L' } },
      );
      expect(colour.completion.values).toEqual(['blue', 'black']);
      // Asked of the remote under its own name, with the context.
      expect(asked).toEqual([['b', { size: 'L' }]]);
      // An argument the remote does not complete: its answer, no values.
      const size = await client.complete(prompt, { name: 'size', value: '' });
      expect(size.completion.values).toEqual([]);
      const swatch = await client.complete(
        { type: 'ref/resource', uri: 'colour://{name}{?shade}' },
        { name: 'name', value: 'g' },
      );
      expect(swatch.completion.values).toEqual(['green', 'grey']);
      // The remote's count passes through with its values.
      const shade = await client.complete(
        { type: 'ref/resource', uri: 'colour://{name}{?shade}' },
        { name: 'shade', value: '' },
      );
      expect(shade.completion).toEqual({ values: ['light', 'dark'], total: 12, hasMore: true });
      // The remote's failure fails the client's request, with its message.
      await expect(client.complete(prompt, { name: 'colour', value: '!' })).rejects.toThrow(
        'no colour starts with "!"',
      );
      expect(asked).toHaveLength(2);
    },
  );

  it('completes nothing of a remote that does not offer completions', async () => {
    const plainPrompt = servers.prompts.find((p) => p.name === 'plain__paint');
    expect(plainPrompt?.arguments).toEqual([{ name: 'colour' }]);
    expect(plainPrompt?.completions).toBeUndefined();
    expect(servers.prompts.find((p) => p.name === 'suggests__paint')?.completions).toBeDefined();
    const client = await clientOf(servers, 'legacy');
    // Not asked of the remote (which would refuse the method): no values.
    const none = await client.complete(
      { type: 'ref/prompt', name: 'plain__paint' },
      { name: 'colour', value: 'b' },
    );
    expect(none.completion.values).toEqual([]);
    // Composed alone, it is not offered completions at all.
    const alone = await McpServers.start({
      mcpServers: { plain: { transport: plainTransport, protocol: 'legacy' } },
    });
    closers.push(alone);
    const aloneClient = await clientOf(alone, 'legacy');
    expect(aloneClient.serverCapabilities.prompts).toBeDefined();
    expect(aloneClient.serverCapabilities.completions).toBeUndefined();
  });
});

describe('McpServers and a remote whose resources the catalog cannot serve', () => {
  it('leaves out a resource without a URI scheme and a template the SDK cannot parse, naming each, and serves the rest', async () => {
    const raw = new Server(
      { name: 'raw', version: '1' },
      { capabilities: { resources: { listChanged: true } } },
    );
    raw.setRequestHandler('resources/list', () => ({
      resources: [
        { uri: 'no scheme', name: 'loose' },
        { uri: 'good://a', name: 'a' },
      ],
    }));
    raw.setRequestHandler('resources/templates/list', () => ({
      resourceTemplates: [
        { uriTemplate: 'bad://{', name: 'broken' },
        { uriTemplate: 'good://{id}', name: 'item' },
      ],
    }));
    const warned: string[] = [];
    const servers = await McpServers.start(
      {
        mcpServers: {
          raw: {
            transport: () => {
              const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
              void raw.connect(serverEnd);
              return clientEnd;
            },
            protocol: 'legacy' as const,
          },
        },
      },
      { onWarning: (message) => warned.push(message) },
    );
    const composed = serveTools(servers);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await composed.connect(serverEnd);
    const client = await connectMcp({ transport: clientEnd, protocol: 'legacy' });
    try {
      expect(servers.resources.map((r) => ('uriTemplate' in r ? r.uriTemplate : r.uri))).toEqual([
        'good://a',
        'good://{id}',
      ]);
      expect(warned).toEqual(
        expect.arrayContaining([
          'mcp server "raw": resource "no scheme" is left out: its uri is not a URI (scheme:...)',
          expect.stringMatching(
            /^mcp server "raw": template "bad:\/\/\{" is left out: it is not an RFC 6570 template: /,
          ),
        ]),
      );
      // The rest is served: the catalog took them.
      expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
        'good://{id}',
      ]);
      expect((await client.listResources()).map((r) => r.uri)).toEqual(['good://a']);
    } finally {
      await client.close();
      await composed.close();
      await servers.close();
      await raw.close();
    }
  });
});

/** Waits for `done` to hold, turn by turn of the event loop (no clock involved). */
const until = (done: () => boolean, what = 'the condition'): Promise<void> =>
  waitUntil(done, what, 15_000, 2);
