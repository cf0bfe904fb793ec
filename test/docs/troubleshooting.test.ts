/**
 * docs/troubleshooting.md lists the errors agenttool raises at start-up and those a call
 * meets at run time, each under a heading with an id (`### ... {#id}`), what it is (the
 * error's class and code, the command's exit code, the tool result a client reads, or the
 * HTTP status of the endpoint), and a `text` block quoting its message (`…` stands for a
 * part that varies, such as a temporary path). Here each one is raised through the public
 * entries (or the built command), and what it is and its message are checked against the
 * page. An entry without a way to raise it here, or a way without an entry, fails the
 * test.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentToolError,
  type CanActivate,
  Executor,
  Guard,
  type Job,
  newTool,
  Param,
  Scopes,
  Sequential,
  Tool,
  toolFromInstance,
  ToolSet,
} from 'agenttool';
import { Inject, Injectable, InjectionToken, Module, ToolApp } from 'agenttool/di';
import {
  connectMcp,
  type HttpHandler,
  type HttpRequestExtras,
  jwtVerifier,
  type McpToolServer,
  serveTools,
} from 'agenttool/mcp';
import { checkSandboxSupport, Shell } from 'agenttool/shell';
import { WorkspaceModule, type WorkspaceOptions } from 'agenttool/workspace';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ensureBuilt, killChildren, ROOT, runAgenttool } from '../cli/helpers';
import { modern } from '../mcp/auth/helpers';
import { buildFrameworkFixtures } from '../support/frameworks';
import { INITIALIZE } from '../support/initialize';

/**
 * What raising an entry's error gave: its class and code, the command's exit code, the
 * kind of tool result a client read, or the endpoint's HTTP status.
 */
interface Raised {
  readonly name: string;
  readonly code?: string;
  readonly exit?: number;
  readonly result?: 'isError' | 'output';
  readonly status?: number;
  readonly message: string;
}

/** The error `run` throws or rejects with, as {@link Raised}. */
async function raised(run: () => unknown): Promise<Raised> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof Error)) throw new Error(`threw a non-Error: ${String(error)}`);
    return {
      name: error.constructor.name,
      ...(error instanceof AgentToolError ? { code: error.code } : {}),
      message: error.message,
    };
  }
  throw new Error('raised nothing');
}

/** What `agenttool <args>` printed on stderr, with its exit code. */
async function command(args: readonly string[], cwd = work): Promise<Raised> {
  const ran = await runAgenttool(args, { cwd });
  return { name: 'agenttool', exit: ran.code ?? -1, message: ran.stderr };
}

/** A client connected to `served` in memory, in a 2025-era session. */
async function inMemoryClient(served: McpToolServer): Promise<Client> {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await served.connect(serverEnd);
  const client = new Client({ name: 'troubleshooting', version: '1.0.0' });
  await client.connect(clientEnd);
  return client;
}

/** A tool result as {@link Raised}: whether it is an error, and its text. */
function asRaised(result: Awaited<ReturnType<Client['callTool']>>): Raised {
  const content = result.content as { type: string; text?: string }[];
  return {
    name: 'tool result',
    result: result.isError === true ? 'isError' : 'output',
    message: content.map((block) => block.text ?? '').join('\n'),
  };
}

/**
 * What a client reads when it calls `name` with `args` on `served` (in memory, a 2025-era
 * session): whether the result is an error, and its text. With `before`, those calls are
 * made at the same time, for an entry about calls that wait their turn: then the answer is
 * the first refused call's (which of them is refused depends on their order of arrival).
 */
async function toolResult(
  served: McpToolServer,
  name: string,
  args: Record<string, unknown>,
  before: readonly Record<string, unknown>[] = [],
): Promise<Raised> {
  const client = await inMemoryClient(served);
  try {
    const results = await Promise.all(
      [...before, args].map((a) => client.callTool({ name, arguments: a })),
    );
    return asRaised(results.find((r) => r.isError === true) ?? results.at(-1)!);
  } finally {
    await client.close();
    await served.close();
  }
}

/** What a client reads when it calls the workspace's `bash` on a workspace in `work`. */
async function workspaceCall(
  args: Record<string, unknown>,
  options: { shell?: WorkspaceOptions['shell']; maxQueuedCalls?: number; before?: number } = {},
): Promise<Raised> {
  const root = mkdtempSync(join(work, 'workspace-'));
  const app = await ToolApp.create(WorkspaceModule.forRoot({ root, shell: options.shell ?? {} }), {
    ...(options.maxQueuedCalls === undefined ? {} : { maxQueuedCalls: options.maxQueuedCalls }),
  });
  try {
    const before = Array.from({ length: options.before ?? 0 }, () => ({ command: 'sleep 1' }));
    return await toolResult(serveTools(app), 'bash', args, before);
  } finally {
    await app.close();
  }
}

/**
 * Left running by a command: once the command is over, it kills the shell's newest
 * child, which is the job the shell readied for the next command, then says so in a file.
 */
const KILL_THE_NEXT_JOB = `shell=$$
(
  sleep 0.3
  newest= since=0
  for f in /proc/[0-9]*/stat; do
    IFS= read -r l <"$f" 2>/dev/null || continue
    l=\${l##*) }
    set -- $l
    [ "$2" = "$shell" ] && [ "\${20}" -ge "$since" ] || continue
    since=\${20} p=\${f#/proc/} newest=\${p%/stat}
  done
  kill -9 "$newest"
  : >killed
) >/dev/null 2>&1 &`;

/**
 * What a client reads from the workspace's `bash` when the job readied for its command was
 * killed while it waited, by a process the previous command left behind.
 */
async function lostJob(): Promise<Raised> {
  const root = mkdtempSync(join(work, 'workspace-'));
  const app = await ToolApp.create(WorkspaceModule.forRoot({ root, shell: { sandbox: false } }));
  const served = serveTools(app);
  const client = await inMemoryClient(served);
  try {
    await client.callTool({ name: 'bash', arguments: { command: KILL_THE_NEXT_JOB } });
    for (let i = 0; i < 500 && !existsSync(join(root, 'killed')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return asRaised(await client.callTool({ name: 'bash', arguments: { command: 'echo ran' } }));
  } finally {
    await client.close();
    await served.close();
    await app.close();
  }
}

/**
 * The endpoint's answer to `request`: its status, and its `WWW-Authenticate` challenge
 * (when it has one) and body as the message.
 */
async function httpAnswer(
  handler: HttpHandler,
  request: Request,
  extras?: HttpRequestExtras,
): Promise<Raised> {
  const response = await handler.fetch(request, extras);
  const challenge = response.headers.get('www-authenticate');
  const body = await response.text();
  return {
    name: 'HTTP',
    status: response.status,
    message: challenge === null ? body : `WWW-Authenticate: ${challenge}\n${body}`,
  };
}

/** A POST of an `initialize` to a handler mounted at /mcp. */
function initialize(body = '', headers: Record<string, string> = {}): Request {
  const opening = JSON.stringify(INITIALIZE);
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: opening + body,
  });
}

/** Opens a session on `handler` for the caller at `address`, and gives its handler. */
async function withSession(handler: HttpHandler, address: string): Promise<HttpHandler> {
  const opened = await handler.fetch(initialize(), { clientAddress: address });
  if (opened.status !== 200) throw new Error(`initialize answered ${opened.status}`);
  await opened.body?.cancel();
  return handler;
}

/** A handler that requires the scope `notes`; the token "reader" carries only `notes:read`. */
function authorizedHandler(): HttpHandler {
  return serveTools([]).handler({
    path: '/mcp',
    auth: {
      verifyToken: (token) =>
        token === 'reader'
          ? { subject: 'ada', clientId: 'app', scopes: ['notes:read'] }
          : undefined,
      authorizationServers: ['https://auth.example.com'],
      resource: 'https://mcp.example.com/mcp',
      requiredScopes: ['notes'],
    },
  });
}

/** A CommonJS module file that loads agenttool's built entries by their paths. */
function moduleFile(name: string, body: string): string {
  const entry = (name: string) => JSON.stringify(join(ROOT, 'dist/pkg', `${name}.js`));
  writeFileSync(
    join(work, name),
    `const { Param, Tool } = require(${entry('index')});\nconst { Module } = require(${entry('di')});\n${body}\n`,
  );
  return name;
}

function decorate<T extends object>(target: T, ...decorators: ClassDecorator[]): T {
  for (const decorator of decorators.reverse()) decorator(target as never);
  return target;
}

class GreetArgs {
  @Param('Who to greet') name!: string;
}

@Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })
class Greet {
  execute(args: GreetArgs): string {
    return `Hello, ${args.name}!`;
  }
}

let work: string;

/** Each entry of the page, by its id, and how to raise it. */
const TRIGGERS: Record<string, () => Promise<Raised>> = {
  // Decorators and tool classes
  'standard-decorators': () =>
    raised(() => {
      const standard = Param('Who to greet') as unknown as (target: undefined, c: object) => void;
      standard(undefined, { kind: 'field', name: 'name' });
    }),
  'no-decorator-metadata': () =>
    raised(() => {
      // Applied by hand, as a compiler that emits no metadata applies them.
      class GreetArgs {
        name!: string;
      }
      Param('Who to greet')(GreetArgs.prototype, 'name');
      class Greet {
        execute(): string {
          return 'hello';
        }
      }
      decorate(Greet, Tool({ name: 'greet', description: 'Greet', args: GreetArgs }));
      return toolFromInstance(new Greet());
    }),
  'type-unknown': () =>
    raised(() => {
      class LookupArgs {
        @Param('A name or a number') key!: string | number;
      }
      @Tool({ name: 'lookup', description: 'Look something up', args: LookupArgs })
      class Lookup {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Lookup());
    }),
  'array-items': () =>
    raised(() => {
      class TagArgs {
        @Param('The tags') tags!: string[];
      }
      @Tool({ name: 'tag', description: 'Tag a note', args: TagArgs })
      class TagNote {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new TagNote());
    }),
  'unknown-type-name': () =>
    raised(() => {
      class CountArgs {
        @Param('How many', { type: 'int' as never }) count!: number;
      }
      @Tool({ name: 'count', description: 'Count', args: CountArgs })
      class Count {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Count());
    }),
  'type-function-undefined': () =>
    raised(() => {
      class OrderArgs {
        @Param('The address', { type: () => undefined as never }) address!: object;
      }
      @Tool({ name: 'order', description: 'Place an order', args: OrderArgs })
      class PlaceOrder {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new PlaceOrder());
    }),
  'enum-type': () =>
    raised(() => {
      class ModeArgs {
        @Param('The mode', { enum: [1, 2] }) mode!: string;
      }
      @Tool({ name: 'switch_mode', description: 'Switch mode', args: ModeArgs })
      class SwitchMode {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new SwitchMode());
    }),
  'param-on-method': () =>
    raised(() => {
      class GreetArgs {
        @Param('Who to greet') name(): string {
          return '';
        }
      }
      @Tool({ name: 'greet', description: 'Greet', args: GreetArgs })
      class Greet {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Greet());
    }),
  'args-constructor': () =>
    raised(() => {
      class GreetArgs {
        @Param('Who to greet') name!: string;
        constructor(name: string) {
          this.name = name;
        }
      }
      @Tool({ name: 'greet', description: 'Greet', args: GreetArgs })
      class Greet {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Greet());
    }),
  'args-not-a-class': () =>
    raised(() => {
      @Tool({ name: 'greet', description: 'Greet', args: (() => GreetArgs) as never })
      class Greet {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Greet());
    }),
  'no-tool-decorator': () =>
    raised(() => {
      class Greet {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Greet());
    }),
  'tool-name': () =>
    raised(() => {
      @Tool({ name: 'read file', description: 'Read a file' })
      class ReadFile {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new ReadFile());
    }),
  'no-execute': () =>
    raised(() => {
      @Tool({ name: 'greet', description: 'Greet' })
      class Greet {
        run(): string {
          return '';
        }
      }
      return toolFromInstance(new Greet());
    }),
  'applied-twice': () =>
    raised(() => {
      @Tool({ name: 'migrate', description: 'Migrate the database' })
      @Sequential()
      @Sequential()
      class Migrate {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new Migrate());
    }),
  'output-bytes': () =>
    raised(() => {
      class Thumbnail {
        @Param('The PNG') png!: Buffer;
      }
      @Tool({ name: 'thumbnail', description: 'Make a thumbnail', output: Thumbnail })
      class MakeThumbnail {
        execute(): Thumbnail {
          return new Thumbnail();
        }
      }
      return toolFromInstance(new MakeThumbnail());
    }),
  'scope-name': () =>
    raised(() => {
      @Tool({ name: 'add_note', description: 'Add a note' })
      @Scopes('notes write')
      class AddNote {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new AddNote());
    }),
  'guard-constructor': () =>
    raised(() => {
      class KnownUsers implements CanActivate {
        constructor(readonly known: Set<string>) {}
        canActivate(): boolean {
          return true;
        }
      }
      @Tool({ name: 'add_note', description: 'Add a note' })
      @Guard(KnownUsers)
      class AddNote {
        execute(): string {
          return '';
        }
      }
      return toolFromInstance(new AddNote());
    }),
  'new-tool-execute': () =>
    raised(() =>
      newTool({ name: 'greet', description: 'Greet', parameters: undefined, execute: 42 as never }),
    ),
  'new-tool-output-schema': () =>
    raised(() =>
      newTool({
        name: 'greet',
        description: 'Greet',
        parameters: undefined,
        outputSchema: { type: 'string' },
        execute: () => ({ output: '' }),
      }),
    ),
  'duplicate-tool-names': () =>
    raised(() => {
      const greet = toolFromInstance(new Greet());
      new ToolSet([greet, greet]).validate();
    }),

  // Modules and injection
  'root-not-a-module': () => raised(() => ToolApp.create(class AppModule {})),
  'import-not-a-module': () =>
    raised(() => {
      class ConfigModule {}
      @Module({ imports: [ConfigModule] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'tools-entry-not-a-tool': () =>
    raised(() => {
      class ReadFileTool {
        execute(): string {
          return '';
        }
      }
      @Module({ tools: [ReadFileTool] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'undefined-entry': () =>
    raised(() => {
      @Module({ imports: [undefined as never] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'not-a-provider': () =>
    raised(() => {
      @Module({ providers: [{ provide: 'CONFIG' } as never] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'missing-provider': () =>
    raised(() => {
      @Injectable()
      class ReadFileTool {
        constructor(@Inject('CONFIG') readonly config: object) {}
      }
      @Tool({ name: 'read_file', description: 'Read a file' })
      class ReadFile extends ReadFileTool {
        execute(): string {
          return '';
        }
      }
      @Module({ tools: [ReadFile] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'not-exported': () =>
    raised(() => {
      const CONFIG = new InjectionToken<object>('CONFIG');
      @Module({ providers: [{ provide: CONFIG, useValue: {} }] })
      class ConfigModule {}
      @Tool({ name: 'read_file', description: 'Read a file' })
      class ReadFile {
        constructor(@Inject(CONFIG) readonly config: object) {}
        execute(): string {
          return '';
        }
      }
      @Module({ imports: [ConfigModule], tools: [ReadFile] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'no-injection-token': () =>
    raised(() => {
      interface Clock {
        now(): number;
      }
      @Tool({ name: 'time', description: 'The time' })
      class Time {
        constructor(readonly clock: Clock) {}
        execute(): string {
          return '';
        }
      }
      @Module({ tools: [Time] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'undecorated-provider': () =>
    raised(() => {
      class Config {}
      class Files {
        constructor(readonly config: Config) {}
      }
      @Module({ providers: [Config, Files] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'circular-dependency': () =>
    raised(() => {
      @Injectable()
      class Orders {
        constructor(@Inject('Billing') readonly billing: object) {}
      }
      @Injectable()
      class Billing {
        constructor(readonly orders: Orders) {}
      }
      @Module({ providers: [Orders, { provide: 'Billing', useClass: Billing }] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'export-not-provided': () =>
    raised(() => {
      @Module({ exports: ['CONFIG'] })
      class ConfigModule {}
      return ToolApp.create(ConfigModule);
    }),
  'tool-provider-not-instance': () =>
    raised(() => {
      @Module({ tools: [Greet], providers: [{ provide: Greet, useValue: {} }] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'duplicate-tool-in-app': () =>
    raised(() => {
      @Tool({ name: 'greet', description: 'Greet again' })
      class GreetAgain {
        execute(): string {
          return '';
        }
      }
      @Module({ tools: [Greet, GreetAgain] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'provider-failed': () =>
    raised(() => {
      @Module({
        providers: [
          {
            provide: 'CONFIG',
            useFactory: () => {
              throw new Error('config.json: no such file');
            },
          },
        ],
      })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'hook-failed': () =>
    raised(() => {
      @Injectable()
      class Database {
        onModuleInit(): void {
          throw new Error('connection refused');
        }
      }
      @Module({ providers: [Database] })
      class AppModule {}
      return ToolApp.create(AppModule);
    }),
  'start-timeout': () =>
    raised(() => {
      @Module({ providers: [{ provide: 'CONFIG', useFactory: () => new Promise(() => {}) }] })
      class ConfigModule {}
      return ToolApp.create(ConfigModule, { timeoutMs: 20 });
    }),
  'start-cancelled': () =>
    raised(() => {
      @Module({ tools: [Greet] })
      class AppModule {}
      return ToolApp.create(AppModule, { signal: AbortSignal.abort(new Error('shutting down')) });
    }),
  'start-options': () =>
    raised(() => {
      @Module({ tools: [Greet] })
      class AppModule {}
      return ToolApp.create(AppModule, { timeoutMs: -1 });
    }),
  'unknown-job': async () => {
    @Module({ tools: [Greet] })
    class AppModule {}
    const app = await ToolApp.create(AppModule);
    try {
      return await raised(() => app.job('gret', { name: 'Ada' }));
    } finally {
      await app.close();
    }
  },
  'not-a-job': () =>
    raised(() => new Executor().execute([{ tool: undefined, call: {} } as unknown as Job])),

  // Serving over MCP
  'serve-what': () => raised(() => serveTools(42 as never)),
  'serve-tool-name': () =>
    raised(() =>
      serveTools([
        newTool({
          name: 'read file',
          description: '',
          parameters: undefined,
          execute: () => ({ output: '' }),
        }),
      ]),
    ),
  'serve-duplicate': () =>
    raised(() => {
      const greet = toolFromInstance(new Greet());
      return serveTools([greet, greet]);
    }),
  'dns-rebinding': () => raised(() => serveTools([]).listenHttp({ host: '0.0.0.0', port: 0 })),
  'trust-proxy': () => raised(() => serveTools([]).listenHttp({ trustProxy: 'yes' as never })),
  'count-limit': () => raised(() => serveTools([]).listenHttp({ maxSessions: 0 })),
  'auth-verify-token': () =>
    raised(() =>
      serveTools([]).listenHttp({
        auth: {
          verifyToken: undefined as never,
          authorizationServers: ['https://auth.example.com'],
        },
      }),
    ),
  'auth-servers': () =>
    raised(() =>
      serveTools([]).listenHttp({
        auth: { verifyToken: () => undefined, authorizationServers: [] },
      }),
    ),
  'auth-url': () =>
    raised(() =>
      serveTools([]).listenHttp({
        auth: { verifyToken: () => undefined, authorizationServers: ['auth.example.com'] },
      }),
    ),
  'auth-scope': () =>
    raised(() =>
      serveTools([]).listenHttp({
        auth: {
          verifyToken: () => undefined,
          authorizationServers: ['https://auth.example.com'],
          requiredScopes: ['notes read'],
        },
      }),
    ),
  'jwt-issuer': () => raised(() => jwtVerifier({ issuer: '', jwksUrl: 'https://a.example/jwks' })),
  'jwt-jwks': () =>
    raised(() => jwtVerifier({ issuer: 'https://auth.example.com', jwksUrl: 'keys.json' })),
  'jwt-algorithms': () =>
    raised(() =>
      jwtVerifier({
        issuer: 'https://auth.example.com',
        jwksUrl: 'https://auth.example.com/jwks',
        algorithms: ['HS256'],
      }),
    ),
  'scale-out-redis-url': () =>
    raised(() => serveTools([], { scaleOut: { requestStateKey: 'k'.repeat(64) } as never })),
  'scale-out-instance': () =>
    raised(() =>
      serveTools([], {
        scaleOut: {
          requestStateKey: 'k'.repeat(64),
          redisUrl: 'redis://127.0.0.1:6379',
          instanceId: 'agent 1',
        },
      }),
    ),
  'scale-out-key': () =>
    raised(() =>
      serveTools([], {
        scaleOut: { requestStateKey: 'secret', redisUrl: 'redis://127.0.0.1:6379' },
      }),
    ),
  'connect-options': () => raised(() => connectMcp({ transport: {} as never })),

  // The shell, its sandbox and the workspace
  'sandbox-programs': () => raised(() => checkSandboxSupport(join(work, 'empty-path'))),
  'sandbox-user-namespaces': () =>
    raised(() => {
      // Stand-ins for the two programs; this bwrap fails as it does where user
      // namespaces are off.
      const bin = join(work, 'no-userns-bin');
      mkdirSync(bin, { recursive: true });
      for (const program of ['socat']) {
        writeFileSync(join(bin, program), '#!/bin/sh\nexit 0\n');
        chmodSync(join(bin, program), 0o755);
      }
      writeFileSync(
        join(bin, 'bwrap'),
        '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
      );
      chmodSync(join(bin, 'bwrap'), 0o755);
      checkSandboxSupport(bin);
    }),
  'shell-start-timeout': async () => {
    // A shell command that never reads its input: it starts, and is never ready.
    const shell = new Shell({
      sandbox: false,
      cwd: work,
      command: ['bash', '--noprofile', '--norc', '-c', 'exec sleep 30'],
      startTimeoutMs: 500,
    });
    try {
      return await raised(() => shell.run('true'));
    } finally {
      await shell.close();
    }
  },
  'shell-container-and-sandbox': () =>
    raised(() => new Shell({ sandbox: {}, container: { name: 'agent', runtime: 'podman' } })),
  'shell-allowed-hosts': () => raised(() => new Shell({ sandbox: { allowedHosts: ['*'] } })),
  'workspace-root': async () => {
    const saved = process.env.WORKSPACE_ROOT;
    process.env.WORKSPACE_ROOT = join(work, 'no-such-folder');
    try {
      return await raised(() => ToolApp.create(WorkspaceModule));
    } finally {
      if (saved === undefined) delete process.env.WORKSPACE_ROOT;
      else process.env.WORKSPACE_ROOT = saved;
    }
  },
  'missing-peer': async () => {
    const ran = await new Promise<{ stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--require',
          join(ROOT, 'dist/test/fixtures/frameworks/hide-packages.js'),
          '-e',
          "try { require('agenttool/nest') } catch (e) { console.error(JSON.stringify({ name: e.constructor.name, code: e.code, message: e.message })) }",
        ],
        { cwd: ROOT, env: { ...process.env, HIDE_PACKAGES: '@nestjs/common' } },
        (_error, _stdout, stderr) => resolve({ stderr }),
      );
    });
    return JSON.parse(ran.stderr) as Raised;
  },

  // The command line
  'cli-not-found': () => {
    // In a project, as the page shows it (not built yet).
    writeFileSync(join(work, 'package.json'), '{"name": "tools"}\n');
    return command(['serve', 'dist/app.module.js']);
  },
  'cli-typescript': () => {
    writeFileSync(join(work, 'app.module.ts'), 'export {};\n');
    return command(['serve', 'app.module.ts']);
  },
  'cli-no-module': () => {
    writeFileSync(join(work, 'tools.js'), 'exports.answer = 42;\n');
    return command(['serve', 'tools.js']);
  },
  'cli-several-modules': () =>
    command([
      'list',
      moduleFile(
        'two.module.js',
        'class FirstModule {}\nModule({})(FirstModule);\nclass SecondModule {}\nModule({})(SecondModule);\nmodule.exports = { FirstModule, SecondModule };',
      ),
    ]),
  'cli-load-failed': () => {
    writeFileSync(join(work, 'broken.js'), "require('./no-such-file');\n");
    return command(['serve', 'broken.js']);
  },
  'cli-app-failed': () =>
    command([
      'list',
      moduleFile(
        'failing.module.js',
        'class AppModule {}\nModule({ imports: [undefined] })(AppModule);\nexports.AppModule = AppModule;',
      ),
    ]),
  'cli-unknown-tool': () =>
    command(['call', join(ROOT, 'dist/samples/readme/greet.js'), 'gret', '{"name": "Ada"}']),
  'cli-arguments-json': () =>
    command(['call', join(ROOT, 'dist/samples/readme/greet.js'), 'greet', "{name: 'Ada'}"]),
  'cli-arguments-invalid': () =>
    command(['call', join(ROOT, 'dist/samples/readme/greet.js'), 'greet', '{"name": 1}']),
  'cli-http-only': () =>
    command(['serve', join(ROOT, 'dist/samples/readme/greet.js'), '--stateless']),
  'cli-auth-issuer': () =>
    command([
      'serve',
      join(ROOT, 'dist/samples/readme/greet.js'),
      '--http',
      '0',
      '--auth-jwks',
      'https://auth.example.com/jwks',
    ]),
  'cli-redis-key': () =>
    command([
      'serve',
      join(ROOT, 'dist/samples/readme/greet.js'),
      '--http',
      '0',
      '--redis',
      'redis://127.0.0.1:6379',
    ]),
  'cli-no-target': () => command(['list']),
  'cli-connection': () => command(['list', '--http', 'http://127.0.0.1:9/mcp']),

  // What a call can meet at run time
  'unknown-tool': () => toolResult(serveTools([toolFromInstance(new Greet())]), 'gret', {}),
  'invalid-arguments': () =>
    toolResult(serveTools([toolFromInstance(new Greet())]), 'greet', { name: 1 }),
  'tool-panicked': () => {
    @Tool({ name: 'greet', description: 'Greet someone by name', args: GreetArgs })
    class BrokenGreet {
      execute(args: GreetArgs): string {
        const profile = undefined as unknown as { title: string };
        return `Hello, ${profile.title} ${args.name}!`;
      }
    }
    // The stack goes to onError (stderr by default); the test keeps it out of its output.
    const served = serveTools([toolFromInstance(new BrokenGreet())], { onError: () => undefined });
    return toolResult(served, 'greet', { name: 'Ada' });
  },
  'output-does-not-fit': () => {
    class Count {
      @Param('How many notes there are') count!: number;
    }
    @Tool({ name: 'count_notes', description: 'Count the notes', output: Count })
    class CountNotes {
      execute(): Count {
        return { count: 'three' } as unknown as Count;
      }
    }
    return toolResult(serveTools([toolFromInstance(new CountNotes())]), 'count_notes', {});
  },
  'call-refused': () => {
    @Tool({ name: 'add_note', description: 'Add a note' })
    @Guard(() => false)
    class AddNote {
      execute(): string {
        return '';
      }
    }
    return toolResult(serveTools([toolFromInstance(new AddNote())]), 'add_note', {});
  },
  'shell-handle-closed': () => workspaceCall({ command: 'pwd', shell_id: 'shell_gone' }),
  'shell-job-lost': lostJob,
  'shell-stopped': () =>
    workspaceCall(
      { command: 'kill -STOP $$', timeout_seconds: 1 },
      { shell: { sandbox: false, interruptGraceMs: 200 } },
    ),
  'calls-waiting': () =>
    workspaceCall({ command: 'true' }, { shell: { sandbox: false }, maxQueuedCalls: 1, before: 2 }),
  'sandbox-read-only': () => workspaceCall({ command: 'touch /etc/agenttool-probe' }),
  'sandbox-network': () => workspaceCall({ command: 'curl -sS --max-time 10 https://example.com' }),
  'sandbox-escape-hatch': () =>
    workspaceCall({ command: 'touch /etc/agenttool-probe', dangerously_disable_sandbox: true }),
  'http-401': () => httpAnswer(authorizedHandler(), initialize()),
  'http-403': () =>
    httpAnswer(authorizedHandler(), initialize('', { authorization: 'Bearer reader' })),
  'http-413': () =>
    httpAnswer(
      serveTools([]).handler({ path: '/mcp', maxBodyBytes: 1000 }),
      initialize(' '.repeat(2000)),
    ),
  'http-415': () =>
    httpAnswer(
      serveTools([]).handler({ path: '/mcp' }),
      initialize('', { 'content-type': 'text/plain' }),
    ),
  'http-429': async () =>
    httpAnswer(
      await withSession(
        serveTools([]).handler({ path: '/mcp', maxSessionsPerSubject: 1 }),
        '192.0.2.7',
      ),
      initialize(),
      { clientAddress: '192.0.2.7' },
    ),
  'http-400-param-header': () =>
    httpAnswer(
      serveTools([
        newTool({
          name: 'deploy',
          description: 'Deploys to a region its client mirrors into a header',
          parameters: {
            type: 'object',
            properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
            required: ['region'],
          },
          execute: () => ({ output: 'deployed' }),
        }),
      ]).handler({ path: '/mcp' }),
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'deploy',
          // The header says one region, the body another.
          'mcp-param-region': 'us-west',
        },
        body: JSON.stringify(
          modern('tools/call', { name: 'deploy', arguments: { region: 'eu-north' } }),
        ),
      }),
    ),
  'http-503': async () =>
    httpAnswer(
      await withSession(serveTools([]).handler({ path: '/mcp', maxSessions: 1 }), '192.0.2.7'),
      initialize(),
      { clientAddress: '192.0.2.8' },
    ),
};

const PAGE = readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8');

/** One entry of the page. */
interface Entry {
  readonly id: string;
  readonly title: string;
  readonly name?: string;
  readonly code?: string;
  readonly exit?: number;
  readonly result?: 'isError' | 'output';
  readonly status?: number;
  /** The parts of the quoted message, in order (the quote split at each `…`). */
  readonly parts: readonly string[];
}

function entries(): Entry[] {
  const sections = PAGE.split(/^### /m).slice(1);
  return sections.map((section) => {
    const heading = /^(.*?) \{#([\w-]+)\}\n/.exec(section);
    if (heading === null) throw new Error(`a heading without an id: ### ${section.split('\n')[0]}`);
    const [, title, id] = heading as unknown as [string, string, string];
    const error = /^\*\*Error:\*\* `(\w+)`(?:, code `([A-Z_]+)`)?$/m.exec(section);
    const exit = /^\*\*Exit code:\*\* (\d+)$/m.exec(section);
    const result = /^\*\*Tool result:\*\* (?:`(isError)`|(the command's output))/m.exec(section);
    const status = /^\*\*HTTP status:\*\* (\d{3})\b/m.exec(section);
    const quote = /```text\n([\s\S]*?)\n```/.exec(section)?.[1];
    if ([error, exit, result, status].filter((line) => line !== null).length !== 1) {
      throw new Error(
        `entry ${id}: needs one **Error:**, **Exit code:**, **Tool result:** or **HTTP status:** line`,
      );
    }
    if (quote === undefined) throw new Error(`entry ${id}: needs a text block`);
    return {
      id,
      title,
      ...(error === null ? {} : { name: error[1]! }),
      ...(error?.[2] === undefined ? {} : { code: error[2] }),
      ...(exit === null ? {} : { exit: Number(exit[1]) }),
      ...(result === null ? {} : { result: result[1] === undefined ? 'output' : 'isError' }),
      ...(status === null ? {} : { status: Number(status[1]) }),
      parts: quote.split('…').map((part) => part.trim()),
    };
  });
}

beforeAll(() => {
  ensureBuilt();
  buildFrameworkFixtures(); // the preload that hides a peer dependency
  work = mkdtempSync(join(tmpdir(), 'agenttool-troubleshooting-'));
}, 300_000);

afterAll(() => {
  killChildren();
  rmSync(work, { recursive: true, force: true });
});

describe('docs/troubleshooting.md', () => {
  it('has an entry for each error raised here, and a way to raise each entry', () => {
    expect(
      entries()
        .map((e) => e.id)
        .sort(),
    ).toEqual(Object.keys(TRIGGERS).sort());
  });

  it.each(entries().map((entry) => [entry.id, entry] as const))(
    '%s: raised as the page says',
    async (id, entry) => {
      const trigger = TRIGGERS[id];
      if (trigger === undefined) throw new Error(`no way to raise ${id} here`);
      const got = await trigger();
      if (entry.exit !== undefined)
        expect({ id, exit: got.exit }).toEqual({ id, exit: entry.exit });
      else if (entry.result !== undefined)
        expect({ id, result: got.result }).toEqual({ id, result: entry.result });
      else if (entry.status !== undefined)
        expect({ id, status: got.status }).toEqual({ id, status: entry.status });
      else
        expect({ id, name: got.name, code: got.code }).toEqual({
          id,
          name: entry.name,
          code: entry.code,
        });
      let from = 0;
      for (const part of entry.parts) {
        const at = got.message.indexOf(part, from);
        if (at < 0) {
          throw new Error(
            `${id}: the message does not contain, at or after ${from}:\n${part}\n\nthe message:\n${got.message}`,
          );
        }
        from = at + part.length;
      }
    },
    30_000,
  );

  it('quotes the warning of a tool without a description as the app gives it', async () => {
    @Tool({ name: 'greet', description: '' })
    class Silent {
      execute(): string {
        return '';
      }
    }
    @Module({ tools: [Silent] })
    class AppModule {}
    const warnings: string[] = [];
    const app = await ToolApp.create(AppModule, { onWarning: (w) => void warnings.push(w) });
    await app.close();
    expect(warnings).toHaveLength(1);
    const quoted = /\*\*A tool without a description\*\* \(`AgentToolWarning`\): `([^`]*)…`/.exec(
      PAGE.replace(/\s+/g, ' '),
    )?.[1];
    expect(quoted).toBeDefined();
    expect(warnings[0]).toContain(quoted!.trim());
  });
});
