/**
 * The live tools of an app (here a remote MCP server's, through `McpServersModule`) pass
 * the guards and run the interceptors a class tool of the module that lists them would:
 * the importing modules' guards (listing and calling), then the app's interceptors and
 * the modules', in the same order, once per call, whichever host runs it (served in
 * both eras, a batch), and still once after the remote restarts. The remotes are served
 * in this process, so nothing starts.
 */
import 'reflect-metadata';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type AccessRequest,
  type CallHandler,
  checkAccess,
  type LiveTools,
  createContext,
  definitionHash,
  type Interceptor,
  newTool,
  Param,
  type Result,
  ResultCacheInterceptor,
  text,
  Tool,
  type ToolExecutionContext,
  unwrap,
} from 'agenttool';
import {
  Inject,
  InjectionToken,
  MCP_SERVERS,
  McpServersModule,
  Module,
  ToolApp,
} from 'agenttool/di';
import { connectMcp, type McpServers, type McpToolServer, serveTools } from 'agenttool/mcp';
import { until as waitUntil } from '../support/until';

const log: string[] = [];
/** What the interceptors saw of each call: the tool, its class, the arguments. */
const seen: unknown[] = [];

/** An interceptor that writes `<name> before` and `<name> after` into `log`. */
function around(name: string): Interceptor {
  return {
    async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
      log.push(`${name} before`);
      if (name === 'app') seen.push([context.tool.name, context.toolClass, context.args]);
      const result = await next.handle();
      log.push(`${name} after`);
      return result;
    },
  };
}

/** A guard that writes its name into `log` and refuses mallory. */
const guard =
  (name: string) =>
  (request: AccessRequest): boolean => {
    log.push(`guard ${name}`);
    return request.auth?.subject !== 'mallory';
  };

function remoteServer(): McpToolServer {
  const tool = (name: string, readOnly: boolean) =>
    newTool({
      name,
      description: `The remote's ${name}`,
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      },
      annotations: { readOnly },
      execute: (call) => {
        log.push('tool');
        return text((JSON.parse(call.args) as { text: string }).text);
      },
    });
  return serveTools([tool('echo', true), tool('count', false)], {
    prompts: [{ name: 'hello', description: 'Greets', get: () => 'hello there' }],
    resources: [{ uri: 'remote://note', name: 'note', read: () => 'a note' }],
  });
}

let remote: McpToolServer;
const serverEnds: InMemoryTransport[] = [];
const config = {
  mcpServers: {
    mem: {
      transport: () => {
        const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
        serverEnds.push(serverEnd);
        void remote.connect(serverEnd);
        return clientEnd;
      },
      protocol: 'legacy' as const,
    },
    modern: {
      transport: () => {
        const handler = remote.handler();
        return new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        });
      },
      protocol: 'modern' as const,
    },
  },
};

class TextArgs {
  @Param('The text') text!: string;
}

let servers: Pick<McpServers, 'tools'>;
const warnings: string[] = [];

@Tool({ name: 'local', description: 'A local tool beside the remote ones', args: TextArgs })
class Local {
  constructor(@Inject(MCP_SERVERS) given: Pick<McpServers, 'tools'>) {
    servers = given;
  }
  execute(args: TextArgs): string {
    log.push('tool');
    return args.text;
  }
}

@Module({
  imports: [
    McpServersModule.from(config, {
      retry: { initialDelayMs: 5 },
      onWarning: (message) => warnings.push(message),
    }),
  ],
  tools: [Local],
  guards: [guard('remote module')],
  interceptors: [around('remote module')],
})
class RemoteModule {}

@Module({ imports: [RemoteModule], guards: [guard('root')], interceptors: [around('root')] })
class AppModule {}

let app: ToolApp;
let server: McpToolServer;
let handler: ReturnType<McpToolServer['handler']>;

beforeAll(async () => {
  remote = remoteServer();
  app = await ToolApp.create(AppModule, {
    interceptors: [around('app'), new ResultCacheInterceptor({ ttlMs: 60_000 })],
  });
  server = serveTools(app);
  handler = server.handler({
    auth: {
      resource: 'http://localhost/mcp',
      authorizationServers: ['http://localhost:9000'],
      verifyToken: (token) => ({ subject: token, clientId: 'c', scopes: [] }),
    },
  });
});

afterAll(async () => {
  await handler?.close();
  await server?.close();
  await app?.close();
  await remote?.close();
});

beforeEach(() => {
  log.length = 0;
  seen.length = 0;
});

/** A client of the served app in `era`, calling as `subject`. */
function connectAs(era: 'legacy' | 'modern', subject: string) {
  return connectMcp({
    transport: {
      url: 'http://localhost/mcp',
      fetch: (url, init) => {
        const request = new Request(url, init);
        request.headers.set('authorization', `Bearer ${subject}`);
        return handler.fetch(request);
      },
    },
    protocol: era,
    notificationGrace: 0,
  });
}

/** Calls `name` with `args` as `subject`, served in `era`; the log then holds the call's alone. */
async function served(
  era: 'legacy' | 'modern',
  name: string,
  args: object,
  subject = 'ada',
): Promise<Result> {
  const client = await connectAs(era, subject);
  try {
    log.length = 0;
    const tool = client.tools().find((t) => t.name === name);
    if (tool === undefined) throw new Error(`${name} is not listed`);
    const call = { id: 'c1', args: JSON.stringify(args) };
    return await tool.execute(call, createContext({ call }));
  } finally {
    await client.close();
  }
}

async function batch(name: string, args: object): Promise<Result> {
  const [outcome] = await app.results([app.job(name, args)]);
  if (outcome?.error !== undefined) throw outcome.error;
  return outcome!.result;
}

const CHAIN = [
  'guard root',
  'guard remote module',
  'app before',
  'root before',
  'remote module before',
  'tool',
  'remote module after',
  'root after',
  'app after',
];

describe('live tools in the chain', () => {
  it.each(['legacy', 'modern'] as const)(
    'run a served call of a remote tool through the chain of a class tool (%s)',
    async (era) => {
      expect((await served(era, 'local', { text: `local ${era}` })).output).toBe(`local ${era}`);
      expect(log).toEqual(CHAIN);
      for (const name of ['mem__count', 'modern__count']) {
        expect((await served(era, name, { text: era })).output).toBe(era);
        expect(log).toEqual(CHAIN);
      }
      // The interceptors see the arguments as the model wrote them, and no class.
      expect(seen.slice(-2)).toEqual([
        ['mem__count', undefined, { text: era }],
        ['modern__count', undefined, { text: era }],
      ]);
    },
  );

  it('runs a batch of remote and local tools through the interceptors, once each', async () => {
    const [local, remoteCall] = await app.results([
      app.job('local', { text: 'a' }),
      app.job('modern__count', { text: 'b' }),
    ]);
    expect([local?.result?.output, remoteCall?.result?.output]).toEqual(['a', 'b']);
    expect(log.filter((line) => line === 'app before')).toHaveLength(2);
    expect(log.filter((line) => line === 'remote module after')).toHaveLength(2);
    log.length = 0;
    await batch('mem__count', { text: 'c' });
    // A batch has no caller to guard.
    expect(log).toEqual(CHAIN.slice(2));
  });

  it('hides the remote tools from a caller a guard refuses, and refuses its calls', async () => {
    const ada = await connectAs('modern', 'ada');
    const mallory = await connectAs('modern', 'mallory');
    try {
      expect(ada.tools().map((t) => t.name)).toEqual([
        'local',
        'mem__echo',
        'mem__count',
        'modern__echo',
        'modern__count',
      ]);
      expect(mallory.tools().map((t) => t.name)).toEqual([]);
      log.length = 0;
      const refused = await mallory.session.callTool({
        name: 'mem__count',
        arguments: { text: 'x' },
      });
      expect(refused).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'unknown tool "mem__count"' }],
      });
      // The root's guard refused: nothing further ran.
      expect(log).toEqual(['guard root']);
    } finally {
      await ada.close();
      await mallory.close();
    }
  });

  it('caches the results of a remote tool its server calls read-only, and only those', async () => {
    // Each call's log is cleared before it: the second echo never reaches the remote.
    await served('legacy', 'mem__echo', { text: 'kept' });
    expect(log).toContain('tool');
    await served('legacy', 'mem__echo', { text: 'kept' });
    expect(log).not.toContain('tool');
    await served('legacy', 'mem__count', { text: 'kept' });
    expect(log).toContain('tool');
  });

  it('keeps the definition, and wraps a tool announced anew once when the remote restarts', async () => {
    const before = app.tools.lookup('mem__count')!;
    const source = () => servers.tools.find((t) => t.name === 'mem__count')!;
    expect(unwrap(before)).toBe(source());
    expect(definitionHash(before)).toBe(definitionHash(source()));
    // Read again, the app's tool is the same wrapper.
    expect(app.tools.lookup('mem__count')).toBe(before);

    const since = warnings.length;
    await serverEnds.at(-1)?.close();
    await until(() => app.tools.lookup('mem__count') === undefined, 'the tool to leave');
    await until(() => app.tools.lookup('mem__count') !== undefined, 'the remote to come back');
    // Its prompts and resources are listed again after its tools: the tests below use them.
    await until(
      () =>
        app.prompts.some((prompt) => prompt.name === 'mem__hello') &&
        app.resources.some((resource) => 'uri' in resource && resource.uri === 'remote://note'),
      "the remote's prompts and resources to come back",
    );
    // Besides, the two servers' shared resource URI is reported as its first server comes back.
    expect(warnings.slice(since)).toContain('mcp server "mem": connected again: 2 tools');
    const after = app.tools.lookup('mem__count')!;
    expect(unwrap(after)).toBe(source());
    log.length = 0;
    expect((await batch('mem__count', { text: 'again' })).output).toBe('again');
    expect(log).toEqual(CHAIN.slice(2));
  });

  it('fails arguments that are no JSON object before the interceptors, as the remote would', async () => {
    const tool = app.tools.lookup('mem__count')!;
    const call = { id: 'bad', args: '[1]' };
    await expect(Promise.resolve(tool.execute(call, createContext({ call })))).rejects.toThrow(
      'invalid arguments: expected object, got array',
    );
    expect(log).toEqual([]);
  });
});

describe('a live source of its own', () => {
  it('asks the module guards before the tool’s own, and runs no chain where there is none', async () => {
    const asked: string[] = [];
    const plain = newTool({
      name: 'plain',
      description: 'A tool of a live source',
      access: { guards: [() => (asked.push('own'), true)] },
      execute: () => text('plain'),
    });
    const LIVE = new InjectionToken<LiveTools>('LIVE');
    const live: LiveTools = { tools: [plain], onToolsChanged: () => () => undefined };
    @Module({
      providers: [{ provide: LIVE, useValue: live }],
      liveTools: [LIVE],
      guards: [() => (asked.push('module'), true)],
    })
    class LiveModule {}
    const guarded = await ToolApp.create(LiveModule);
    try {
      const tool = guarded.tools.lookup('plain')!;
      expect(await checkAccess(tool, { tool: 'plain', auth: undefined })).toEqual({
        allowed: true,
      });
      expect(asked).toEqual(['module', 'own']);
      expect(unwrap(tool)).toBe(plain);
    } finally {
      await guarded.close();
    }
    @Module({ providers: [{ provide: LIVE, useValue: live }], liveTools: [LIVE] })
    class OpenModule {}
    const open = await ToolApp.create(OpenModule);
    try {
      expect(open.tools.lookup('plain')).toBe(plain);
    } finally {
      await open.close();
    }
  });
});

/** Waits for `done` to hold, turn by turn of the event loop (no clock involved). */
const until = (done: () => boolean, what: string): Promise<void> =>
  waitUntil(done, what, 15_000, 2);

describe('live prompts and resources behind the chain', () => {
  it.each(['legacy', 'modern'] as const)(
    'are listed, got and read by a caller the module guards let through, and hidden from one they refuse (%s)',
    async (era) => {
      const ada = await connectAs(era, 'ada');
      const mallory = await connectAs(era, 'mallory');
      try {
        log.length = 0;
        expect((await ada.listPrompts()).map((p) => p.name).sort()).toEqual([
          'mem__hello',
          'modern__hello',
        ]);
        // The module guards decide, as for a tool: the root's and the listing module's.
        expect(new Set(log)).toEqual(new Set(['guard root', 'guard remote module']));
        const got = await ada.getPrompt('mem__hello', {});
        expect(got.messages).toEqual([
          { role: 'user', content: { type: 'text', text: 'hello there' } },
        ]);
        expect((await ada.listResources()).map((r) => r.uri)).toEqual(['remote://note']);
        expect((await ada.readResource('remote://note')).contents).toEqual([
          expect.objectContaining({ uri: 'remote://note', text: 'a note' }),
        ]);
        expect(await mallory.listPrompts()).toEqual([]);
        expect(await mallory.listResources()).toEqual([]);
        await expect(mallory.getPrompt('mem__hello', {})).rejects.toThrow(/mem__hello/);
        await expect(mallory.readResource('remote://note')).rejects.toThrow(/remote:\/\/note/);
      } finally {
        await ada.close();
        await mallory.close();
      }
    },
  );
});
