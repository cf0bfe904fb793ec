// McpServersModule: remote MCP servers' tools beside an app's own, in one app, served by
// serveTools(app). The remote is served in this process (over an in-memory pair, or the
// server's fetch handler for 2026-07-28), so nothing starts: what passes through (output
// schemas, structured content, annotations, progress, questions in both eras,
// cancellation), what a lost server does to the list, and the errors.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  annotationsOf,
  type Call,
  createContext,
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
import { connectMcp, type McpServers, McpToolServer, serveTools } from 'agenttool/mcp';

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
    { tasks: { pollIntervalMs: 5 } },
  );
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

function memoryTransport() {
  if (refusals > 0) {
    refusals--;
    throw new Error('the remote is not there');
  }
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  serverEnds.push(serverEnd);
  void remote.connect(serverEnd);
  return clientEnd;
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
    const client = await connectMcp({
      transport: clientEnd,
      protocol: 'legacy',
      onToolsChanged: () => void changes++,
    });
    try {
      const names = () => client.tools().map((t) => t.name);
      expect(names()).toContain('mem__shout');
      expect(client.session.getServerCapabilities()?.tools?.listChanged).toBe(true);
      refusals = 1;
      warnings.length = 0;
      await serverEnds.at(-1)?.close();
      await until(() => !names().includes('mem__shout'));
      expect(names()).toContain('modern__echo');
      expect(warnings[0]).toMatch(
        /^mcp server "mem": connection lost: the connection closed; its 2 tools are withdrawn; connecting again in 5 ms$/,
      );
      // The first retry fails, the second brings the server back.
      await until(() => names().includes('mem__shout'), 'the server to come back');
      expect(warnings.slice(1)).toEqual([
        'mcp server "mem": could not start: the remote is not there; trying again in 5 ms (attempt 2 of 2)',
        'mcp server "mem": connected again: 2 tools',
      ]);
      expect(changes).toBeGreaterThanOrEqual(2);
    } finally {
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
});

/** Waits for `done` to hold, turn by turn of the event loop (no clock involved). */
async function until(done: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`gave up waiting for ${what}`);
}
