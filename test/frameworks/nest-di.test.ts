/**
 * An agenttool/di app in NestJS's own container through asNestModule (agenttool/nest),
 * compared with the same app under ToolApp: session scope (one instance per MCP session,
 * started on its first call, closed when the session ends), scope bubbling and its
 * report, module guards, tsyringe's resolution scope (through a module that re-exports
 * a token by name), the bounded start, and the order of guards and interceptors (against
 * a NestJS controller too). The NestJS side runs in the fixtures
 * test/fixtures/frameworks/nest-di-sessions.ts, nest-di-start.ts and
 * nest-interceptors.ts, on the Node that
 * runs Jest (NestJS 12 is an ES module, which Node loads from our CommonJS and Jest does
 * not). The timeouts in the fixtures are short only to bound factories and hooks that
 * never settle; nothing here asserts a duration.
 */
import { createContext, outputText, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import {
  buildFrameworkFixtures,
  killFixtures,
  type Ran,
  type RunningFixture,
  startFixture,
} from '../support/frameworks';

beforeAll(() => buildFrameworkFixtures(), 300_000);
afterAll(() => killFixtures());

async function report<T>(fixture: string, args: readonly string[]): Promise<T> {
  const ran: Ran = await startFixture(fixture, args, process.execPath).done;
  if (ran.code !== 0)
    throw new Error(`${fixture} ${args.join(' ')} exited ${ran.code}:\n${ran.stderr}`);
  return JSON.parse(ran.stdout) as T;
}

type Phases = Record<
  'start' | 'calls' | 'results' | 'guards' | 'endA' | 'endB' | 'close',
  string[]
> & { readonly access: Record<string, boolean> };

interface Comparison {
  readonly toolApp: Phases;
  readonly adapted: Phases;
  /** The same, with AgentToolModule imported before asNestModule's module. */
  readonly serverFirst: Phases;
  readonly reports: {
    readonly toolApp: unknown[];
    readonly adapted: unknown[];
    readonly silent: number;
    readonly warnings: string[];
  };
}

/** The hooks a session's instance gets when its session ends, in NestJS's order. */
const sessionClose = (n: number, buffer: number): string[] => {
  const order = [`Which #${n}`, `Runner #${n}`, `Shell #${n}`, `Buffer #${buffer}`];
  return [
    ...order.map((name) => `onModuleDestroy ${name}`),
    ...order.map((name) => `beforeApplicationShutdown ${name} undefined`),
    ...order.map((name) => `close ${name}`),
    ...order.map((name) => `onApplicationShutdown ${name} undefined`),
  ];
};
const sessionStart = (n: number, buffer: number): string[] =>
  [`Buffer #${buffer}`, `Shell #${n}`, `Runner #${n}`, `Which #${n}`].flatMap((name) => [
    `onModuleInit ${name}`,
    `onApplicationBootstrap ${name}`,
  ]);

describe('session scope, scope bubbling and module guards, under ToolApp and under asNestModule', () => {
  let compared: Comparison;
  beforeAll(async () => {
    compared = await report<Comparison>('nest-di-sessions', ['compare']);
  }, 120_000);

  it('gives each session its own instances under ToolApp, started on its first call and closed when it ends', () => {
    const { toolApp } = compared;
    expect(toolApp.start).toEqual([
      'onModuleInit Clock #1',
      'onModuleInit Registry #1',
      'onApplicationBootstrap Clock #1',
      'onApplicationBootstrap Registry #1',
    ]);
    expect(toolApp.results).toEqual([
      'Shell #1 with Buffer #1',
      'Shell #1 with Buffer #1',
      'Shell #1',
      'Shell #2 with Buffer #3',
      'Shell #2',
      'Shell #3 with Buffer #5',
    ]);
    expect(toolApp.calls).toEqual([
      ...sessionStart(1, 1),
      'call Scratch #1 with Shell #1 and Buffer #2',
      'close Scratch #1',
      'close Buffer #2',
      ...sessionStart(2, 3),
      'call Scratch #2 with Shell #2 and Buffer #4',
      'close Scratch #2',
      'close Buffer #4',
      ...sessionStart(3, 5),
    ]);
    expect(toolApp.endA).toEqual(sessionClose(1, 1));
    expect(toolApp.endB).toEqual(sessionClose(2, 3));
    // The calls without a session share one, closed first when the app closes.
    expect(toolApp.close).toEqual([
      ...sessionClose(3, 5),
      'onModuleDestroy Registry #1',
      'onModuleDestroy Clock #1',
      'beforeApplicationShutdown Registry #1 undefined',
      'beforeApplicationShutdown Clock #1 undefined',
      'close Clock #1',
      'close Registry #1',
      'onApplicationShutdown Registry #1 undefined',
      'onApplicationShutdown Clock #1 undefined',
    ]);
  });

  it('does the same under NestJS through asNestModule: every instance, hook and close, in the same order', () => {
    const { toolApp, adapted, serverFirst } = compared;
    for (const phase of ['start', 'calls', 'results', 'endA', 'endB', 'close'] as const) {
      expect([phase, adapted[phase]]).toEqual([phase, toolApp[phase]]);
      // Whichever module NestJS closes first, the sessions end before the app's instances.
      expect([phase, serverFirst[phase]]).toEqual([phase, toolApp[phase]]);
    }
  });

  it('asks the module guards before the tools, the importing module first, guard classes with their providers injected, under both', () => {
    const { toolApp, adapted } = compared;
    const access = { clock: true, forbidden: false, which: true, scratch: true, sealed: false };
    expect(toolApp.access).toEqual(access);
    expect(adapted.access).toEqual(access);
    expect(toolApp.guards).toEqual([
      'root guard asked for clock',
      'root guard asked for forbidden',
      'root guard asked for which',
      'Gate (Clock #1) asked for which',
      'root guard asked for scratch',
      'Gate (Clock #1) asked for scratch',
      'root guard asked for sealed',
      'Gate (Clock #1) asked for sealed',
    ]);
    expect(adapted.guards).toEqual(toolApp.guards);
  });

  it('reports the app-scoped providers built per session as ToolApp does, and warns of the stated ones', () => {
    const { reports } = compared;
    expect(reports.toolApp).toEqual([
      [
        expect.objectContaining({ provider: 'Runner', stated: false, chain: ['Runner', 'Shell'] }),
        expect.objectContaining({ provider: 'Audit', stated: true, chain: ['Audit', 'Shell'] }),
        expect.objectContaining({ provider: 'Which', chain: ['Which', 'Runner', 'Shell'] }),
      ],
    ]);
    expect(reports.adapted).toEqual(reports.toolApp);
    // With onScopeReport nothing is warned of; without it, the stated one is.
    expect(reports.silent).toBe(0);
    const stated =
      'SessionModule: Audit is stated app-scoped but is built once per session, as it needs a session-scoped provider (Audit -> Shell); make it session-scoped, or inject a longer-lived provider';
    expect(reports.warnings).toEqual([
      `AgentToolScopeWarning: ToolApp.create(AppModule): ${stated}`,
      `AgentToolScopeWarning: asNestModule(AppModule): ${stated}`,
    ]);
  });
});

describe('a session build under asNestModule, as under ToolApp', () => {
  interface Edges {
    readonly results: string[];
    readonly events: string[];
    readonly outside: string;
  }
  let runs: { toolApp: Edges; adapted: Edges };
  beforeAll(async () => {
    runs = await report<{ toolApp: Edges; adapted: Edges }>('nest-di-sessions', ['edges']);
  }, 120_000);

  it('is tried again after it failed, and a session that ends during it fails its call and closes what comes later', () => {
    const { toolApp, adapted } = runs;
    const results = [
      'Error: EdgesModule: creating the factory of "CONN" failed: no connection yet',
      'CONN #2',
      'Error: Conn: the session ended while it was being built',
    ];
    expect(toolApp.results).toEqual(results);
    expect(adapted.results).toEqual(results);
    // The late one is closed as it comes; the other when its session ends.
    expect(toolApp.events).toEqual(['close CONN #3', 'close CONN #2']);
    expect(adapted.events).toEqual(toolApp.events);
  });

  it('refuses a session-scoped provider asked for outside a tool call, saying where it belongs', () => {
    expect(runs.toolApp.outside).toMatch(/^SESSION_SCOPED: /);
    expect(runs.adapted.outside).toBe(
      'SESSION_SCOPED: agenttool/nest: EdgesModule: the factory of "CONN" is session-scoped: its instances belong to the MCP sessions whose tool calls AgentToolModule serves, and it was asked for outside one; inject it into tools (or what they use), not into what serves HTTP routes',
    );
  });
});

describe('resolution scope under asNestModule', () => {
  type Run = Record<'start' | 'results' | 'calls' | 'ends' | 'close', string[]>;
  let runs: { toolApp: Run; adapted: Run };
  beforeAll(async () => {
    runs = await report<{ toolApp: Run; adapted: Run }>('nest-di-sessions', ['resolution']);
  }, 120_000);
  const hooksOf = (events: readonly string[]) => events.filter((e) => !e.startsWith('close '));
  const closesOf = (events: readonly string[]) => events.filter((e) => e.startsWith('close '));

  it('shares one instance among everything built for one instance, as ToolApp does: per app, per call, per session', () => {
    const { toolApp, adapted } = runs;
    expect(toolApp.results).toEqual([
      'Whole has Unit #1, its Part Unit #1; Other has Unit #2',
      'Fresh #1 has Unit #3, its Part Unit #3',
      'Fresh #2 has Unit #4, its Part Unit #4',
      'Desk #1 has Unit #5, its Part Unit #5',
      'Desk #1 has Unit #5, its Part Unit #5',
      'Desk #2 has Unit #6, its Part Unit #6',
    ]);
    expect(adapted.results).toEqual(toolApp.results);
  });

  it('makes the same hook calls in the same order, and closes the same instances, each after what needs it', () => {
    const { toolApp, adapted } = runs;
    for (const phase of ['start', 'calls', 'ends'] as const) {
      expect([phase, adapted[phase]]).toEqual([phase, toolApp[phase]]);
    }
    expect(hooksOf(adapted.close)).toEqual(hooksOf(toolApp.close));
    expect(closesOf(adapted.close).sort()).toEqual(closesOf(toolApp.close).sort());
    const order = closesOf(adapted.close);
    expect(order.indexOf('close Whole #1')).toBeLessThan(order.indexOf('close Part #1'));
    expect(order.indexOf('close Part #1')).toBeLessThan(order.indexOf('close Unit #1'));
    expect(order.indexOf('close Other #1')).toBeLessThan(order.indexOf('close Unit #2'));
  });
});

let calls = 0;

/** Calls a remote tool as the executor would, and gives its output or its error text. */
async function call(remote: RemoteTools, name: string): Promise<string> {
  const tool: Tool | undefined = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const payload = { id: `call_${++calls}`, args: '{}' };
  try {
    return outputText((await tool.execute(payload, createContext({ call: payload }))).output);
  } catch (error) {
    return `Error: ${(error as Error).message}`;
  }
}

describe('an agenttool/di app served over MCP by AgentToolModule in a NestJS app', () => {
  let app: RunningFixture;
  let url: string;
  const open: RemoteTools[] = [];
  const connect = async (): Promise<RemoteTools> => {
    const remote = await connectMcp({ transport: { url }, protocol: 'legacy' });
    open.push(remote);
    return remote;
  };
  const eventsOf = (stdout: string): string[] =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('EVENT '))
      .map((line) => line.slice('EVENT '.length));

  beforeAll(async () => {
    app = startFixture('nest-di-sessions', ['serve'], process.execPath);
    url = (await app.waitForStdout(/LISTENING (\S+)\n/))[1]!;
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(open.map((remote) => remote.close()));
    app.process.kill('SIGKILL');
  });

  it('gives each MCP session its own instances, closes them when the session ends, and lists only what the guards allow', async () => {
    const a = await connect();
    const b = await connect();
    expect(
      a
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['clock', 'scratch', 'which']);
    expect(await call(a, 'which')).toBe('Shell #1 with Buffer #1');
    expect(await call(b, 'which')).toBe('Shell #2 with Buffer #2');
    expect(await call(a, 'which')).toBe('Shell #1 with Buffer #1');
    expect(await call(a, 'scratch')).toBe('Shell #1');
    expect(await call(a, 'clock')).toBe('Clock #1');
    // A module's prompts: built by Nest with their providers, behind the module's guards.
    expect((await a.listPrompts()).map((p) => p.name)).toEqual(['clock_prompt']);
    const prompt = await a.getPrompt('clock_prompt');
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Which clock is Clock #1?' });
    // Its log lines travel by a pipe, its answers by a socket: wait for the last one.
    await app.waitForStdout(/EVENT close Buffer #3\n/);
    const before = eventsOf(app.stdout());
    expect(before.filter((e) => !e.includes(' asked for '))).toEqual([
      'onModuleInit Clock #1',
      'onModuleInit Registry #1',
      'onApplicationBootstrap Clock #1',
      'onApplicationBootstrap Registry #1',
      ...sessionStart(1, 1),
      ...sessionStart(2, 2),
      'call Scratch #1 with Shell #1 and Buffer #3',
      'close Scratch #1',
      'close Buffer #3',
    ]);
    expect(before).toContain('Gate (Clock #1) asked for sealed');
    await a.close();
    await app.waitForStdout(/EVENT onApplicationShutdown Buffer #1 undefined\n/);
    const ended = eventsOf(app.stdout()).slice(before.length);
    expect(ended.filter((e) => !e.includes(' asked for '))).toEqual(sessionClose(1, 1));
    // The other session goes on with its own.
    expect(await call(b, 'which')).toBe('Shell #2 with Buffer #2');
  });

  it('ends the sessions still open when the app closes, before its app-scoped instances', async () => {
    const c = await connect();
    expect(await call(c, 'which')).toBe('Shell #3 with Buffer #4');
    await app.waitForStdout(/EVENT onApplicationBootstrap Which #3\n/);
    const before = eventsOf(app.stdout()).length;
    app.process.kill('SIGTERM');
    const ran = await app.done;
    expect(ran.code).toBe(0);
    const closing = eventsOf(ran.stdout).slice(before);
    const sessions = closing.slice(0, closing.indexOf('onModuleDestroy Registry #1'));
    const [second, third] = [sessionClose(2, 2), sessionClose(3, 4)];
    expect([...sessions].sort()).toEqual([...second, ...third].sort());
    expect(sessions.filter((e) => second.includes(e))).toEqual(second);
    expect(sessions.filter((e) => third.includes(e))).toEqual(third);
    expect(closing.slice(sessions.length)).toEqual([
      'onModuleDestroy Registry #1',
      'onModuleDestroy Clock #1',
      'beforeApplicationShutdown Registry #1 undefined',
      'beforeApplicationShutdown Clock #1 undefined',
      'close Clock #1',
      'close Registry #1',
      'onApplicationShutdown Registry #1 undefined',
      'onApplicationShutdown Clock #1 undefined',
    ]);
    expect(ran.stdout).toMatch(/CLOSED\n$/);
  });
});

interface Outcome {
  readonly code?: string;
  readonly message?: string;
  readonly cause?: string;
  readonly events: string[];
  readonly started?: boolean;
  readonly own?: string[];
}

describe('a bounded start under NestJS: asNestModule(root, { timeoutMs, signal })', () => {
  const run = (name: string) =>
    report<{ toolApp: Outcome; adapted: Outcome }>('nest-di-start', [name]);

  it('fails with TIMEOUT naming the factory that did not settle and how long it waited, and closes what was built, as ToolApp does', async () => {
    const { toolApp, adapted } = await run('factory');
    expect(toolApp).toMatchObject({ code: 'TIMEOUT', events: ['close Pool'] });
    expect(adapted.code).toBe('TIMEOUT');
    expect(adapted.message).toMatch(
      /^agenttool\/nest: asNestModule\(AppModule\): the start did not finish: a factory or starting hook did not settle within timeoutMs \(50 ms\): ConfigModule: the factory of "CONFIG" had not settled after \d+ ms; what was built is closed\. Make the factory or hook settle, or give it more time$/,
    );
    // Pool was built, never started (NestJS starts once everything is built), and closed.
    expect(adapted.events).toEqual(['close Pool']);
  }, 60_000);

  it('names a starting hook that does not settle, and gives what started its closing hooks', async () => {
    const { toolApp, adapted } = await run('hook');
    const events = ['init Fine', 'init Stuck', 'destroy Fine', 'close Stuck', 'close Fine'];
    expect(toolApp).toMatchObject({ code: 'TIMEOUT', events });
    expect(adapted.code).toBe('TIMEOUT');
    expect(adapted.message).toMatch(/: M: Stuck\.onModuleInit\(\) had not settled after \d+ ms; /);
    expect(adapted.events).toEqual(events);
  }, 60_000);

  it('fails with CANCELLED when the signal aborts, naming what was under way, and closes what was built', async () => {
    const { toolApp, adapted } = await run('abort');
    expect(toolApp).toMatchObject({ code: 'CANCELLED', cause: 'shutting down' });
    expect(adapted).toMatchObject({ code: 'CANCELLED', cause: 'shutting down' });
    expect(adapted.message).toMatch(
      /^agenttool\/nest: asNestModule\(AppModule\): the start was aborted \(shutting down\): ConfigModule: the factory of "CONFIG" had not settled after \d+ ms; what was built is closed$/,
    );
    expect(adapted.events).toEqual(toolApp.events);
    expect(adapted.events).toEqual(['close Pool']);
  }, 60_000);

  it('builds nothing when the signal has aborted already', async () => {
    const { toolApp, adapted } = await run('aborted');
    expect(toolApp.events).toEqual([]);
    expect(adapted).toEqual({
      code: 'CANCELLED',
      message:
        'agenttool/nest: asNestModule(AppModule): the start was aborted (too late) before it began; nothing was built',
      cause: 'too late',
      events: [],
    });
  }, 60_000);

  it('closes what was built when a factory throws, with the error ToolApp gives', async () => {
    const { toolApp, adapted } = await run('throws');
    expect(adapted).toEqual(toolApp);
    expect(adapted).toMatchObject({
      code: 'PROVIDER_FAILED',
      message: 'ConfigModule: creating the factory of "CONFIG" failed: no config here',
      events: ['close Pool'],
    });
  }, 60_000);

  it('does not bound a start that finishes in time, and leaves nothing of its own on the instances', async () => {
    // The fixture's process ends once both runs are over: no timer of the bound is left.
    const { toolApp, adapted } = await run('fine');
    expect(toolApp).toMatchObject({ started: true, events: ['init Pool'] });
    expect(adapted).toMatchObject({ started: true, events: ['init Pool'], own: [] });
  }, 60_000);

  it('closes what was built before NestJS ends the process, with its default abortOnError', async () => {
    const ran = await startFixture('nest-di-start', ['factory-default'], process.execPath).done;
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('EVENT close Pool\n');
  }, 60_000);

  it("warns at the start that a provider's handle and a module's liveTools are not carried over", async () => {
    const warnings = await report<string[]>('nest-di-start', ['not-carried']);
    expect(warnings).toEqual([
      'AGENTTOOL_NEST_NOT_CARRIED: asNestModule(PadModule): under NestJS, Pad in PadModule: its handle (pad_id) is not carried over: its tools take no pad_id argument, and a 2026-07-28 client without agenttool\'s session extension gets a new scratchpad at each call; PadModule\'s liveTools ("LIVE") are not served. Serve such an app with ToolApp and serveTools (agenttool/mcp) instead, or leave them out.',
    ]);
  }, 60_000);

  it('refuses a timeout that is not a positive number', async () => {
    const errors = await report<string[]>('nest-di-start', ['options']);
    expect(errors).toEqual(
      ['0', '-1', 'NaN', 'Infinity'].map(
        (value) =>
          `INVALID_OPTIONS: agenttool/nest: asNestModule(M): timeoutMs must be a positive number of milliseconds, not ${value}`,
      ),
    );
  }, 60_000);
});

describe('guards and interceptors, in a NestJS controller, under ToolApp and under asNestModule', () => {
  // One recording interceptor class, used by both frameworks: a NestJS controller route with
  // guards and interceptors at its three levels (global, the controller's, the method's),
  // and a ToolApp with them at the levels that stand for those (the app's and the root
  // module's, the feature module's, the tool's), served over MCP; then the same app served
  // by NestJS through asNestModule, with NestJS's own global guard and interceptor and the
  // tool class's NestJS interceptor.
  let order: { controller: string[]; toolApp: string[]; adapted: string[] };
  beforeAll(async () => {
    order = await report<typeof order>('nest-interceptors', []);
  }, 120_000);

  const around = (levels: readonly string[]): string[] => [
    ...levels.map((level) => `${level} before`),
    'handler',
    ...[...levels].reverse().map((level) => `${level} after`),
  ];

  it('a NestJS route runs its guards, then its interceptors outermost first, results back in reverse', () => {
    expect(order.controller).toEqual([
      'guard global',
      'guard class',
      'guard method',
      ...around(['global', 'class', 'method']),
    ]);
  });

  it('a ToolApp runs the same interceptor class at its levels in the order NestJS does', () => {
    expect(order.toolApp).toEqual(order.controller);
  });

  it("served through asNestModule, NestJS's guards and interceptors come around agenttool's, every guard first", () => {
    expect(order.adapted).toEqual([
      // agenttool's guards, asked by the MCP server before the call, then NestJS's.
      'guard global',
      'guard class',
      'guard method',
      'guard nest global',
      ...around(['nest global', 'nest class', 'class', 'method']),
    ]);
  });
});
