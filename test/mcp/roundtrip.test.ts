/**
 * Our client against our server, in every transport and both protocol eras: in memory
 * (2025: the SDK's linked pair; 2026-07-28: the server's fetch handler called in
 * process), over Streamable HTTP, and over stdio (a real server process). Definitions
 * hash the same, annotations, records, progress and questions cross unchanged.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import {
  annotationsOf,
  createContext,
  definitionHash,
  type Elicitation,
  outputText,
  ProgressInfo,
  type Result,
  type Tool,
} from 'agenttool';
import {
  connectMcp,
  McpToolServer,
  RECORD_META_KEY,
  type RemoteTools,
  RemoteRecord,
} from 'agenttool/mcp';
import { RECORD_META_KEY as CLIENT_RECORD_META_KEY } from '../../src/mcp/client/record';
import { roundTripTools } from '../fixtures/mcp-server/round-trip-app';

const ROOT = join(__dirname, '..', '..');
const local = roundTripTools();

interface Connected {
  readonly remote: RemoteTools;
  /** How many `tools/call` requests reached the server, where the test can count them. */
  readonly calls?: () => number;
  stop(): Promise<void>;
}

type Connect = () => Promise<Connected>;

function server(): McpToolServer {
  return new McpToolServer(roundTripTools(), { name: 'ours', version: '1.2.3' });
}

/** A fetch that counts the `tools/call` requests it carries. */
function counting(inner: (request: Request) => Promise<Response>): {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  calls: () => number;
} {
  let calls = 0;
  return {
    fetch: (url, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"method":"tools/call"')) calls++;
      return inner(new Request(url, init));
    },
    calls: () => calls,
  };
}

const inMemoryLegacy: Connect = async () => {
  const served = server();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await served.connect(serverSide);
  const remote = await connectMcp({ transport: clientSide, elicitation: true, protocol: 'legacy' });
  return { remote, stop: async () => (await remote.close(), await served.close()) };
};

const inMemoryModern: Connect = async () => {
  const served = server();
  const handler = served.handler();
  const wire = counting((request) => handler.fetch(request));
  const remote = await connectMcp({
    transport: { url: 'http://localhost/mcp', fetch: wire.fetch },
    elicitation: true,
    protocol: 'modern',
  });
  return {
    remote,
    calls: wire.calls,
    stop: async () => (await remote.close(), await served.close()),
  };
};

function overHttp(protocol: 'legacy' | 'auto'): Connect {
  return async () => {
    const served = server();
    const listener = await served.listenHttp();
    const wire = counting((request) => fetch(request));
    const remote = await connectMcp({
      transport: { url: listener.url, fetch: wire.fetch },
      elicitation: true,
      protocol,
    });
    return {
      remote,
      calls: wire.calls,
      stop: async () => {
        await remote.close();
        await served.close();
      },
    };
  };
}

function overStdio(protocol: 'legacy' | 'modern'): Connect {
  return async () => {
    const entry = join(ROOT, 'dist/test/fixtures/mcp-server/serve-round-trip-stdio.js');
    const remote = await connectMcp({
      transport: { command: process.execPath, args: [entry], stderr: 'pipe' },
      elicitation: true,
      protocol,
    });
    return { remote, stop: () => remote.close() };
  };
}

beforeAll(async () => {
  await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/conformance-fixtures.js')], {
    cwd: ROOT,
  });
}, 300_000);

function find(remote: RemoteTools, name: string): Tool {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no ${name}`);
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

it('both adapters use the same record _meta key', () => {
  expect(CLIENT_RECORD_META_KEY).toBe(RECORD_META_KEY);
});

describe.each<[string, 'legacy' | 'modern', Connect]>([
  ['in memory, 2025 era', 'legacy', inMemoryLegacy],
  ['in memory, 2026-07-28', 'modern', inMemoryModern],
  ['over Streamable HTTP, 2025 era', 'legacy', overHttp('legacy')],
  ['over Streamable HTTP, 2026-07-28 (negotiated)', 'modern', overHttp('auto')],
  ['over stdio, 2025 era', 'legacy', overStdio('legacy')],
  ['over stdio, 2026-07-28', 'modern', overStdio('modern')],
])('our server behind our client, %s', (_, era, connect) => {
  let connected: Connected;
  let remote: RemoteTools;

  beforeAll(async () => {
    connected = await connect();
    remote = connected.remote;
  }, 60_000);

  afterAll(async () => {
    await connected.stop();
  });

  it('speaks the era it should', () => {
    expect(remote.era).toBe(era);
  });

  it('serves the server info', () => {
    expect(remote.serverInfo).toEqual({ name: 'ours', version: '1.2.3' });
  });

  it('round-trips definitions with the same hash; strict does not cross', () => {
    expect(remote.tools().map((t) => t.name)).toEqual(local.map((t) => t.name));
    for (const name of ['upper', 'bare', 'spawn']) {
      expect(definitionHash(find(remote, name))).toBe(
        definitionHash(local.find((t) => t.name === name) as Tool),
      );
    }
    expect(find(remote, 'strict').strict).not.toBe(true);
    expect(find(remote, 'strict').parameters).toEqual(
      local.find((t) => t.name === 'strict')?.parameters,
    );
  });

  it('round-trips annotations, and none stays none', () => {
    expect(annotationsOf(find(remote, 'upper'))).toEqual(
      annotationsOf(local.find((t) => t.name === 'upper') as Tool),
    );
    expect(annotationsOf(find(remote, 'bare'))).toBeUndefined();
  });

  it('calls through, and a failure arrives with its message once', async () => {
    await expect(run(find(remote, 'upper'), '{"text":"abc"}')).resolves.toMatchObject({
      output: 'ABC',
    });
    await expect(run(find(remote, 'fails'), '{}')).rejects.toThrow(/^disk on fire$/);
    await expect(run(find(remote, 'upper'), '{}')).rejects.toThrow(/invalid arguments/);
  });

  it('records cross with their namespace and data', async () => {
    const { details } = await run(find(remote, 'spawn'), '{}');
    expect(details).toBeInstanceOf(RemoteRecord);
    expect((details as RemoteRecord).recordNS()).toBe('shell:process-group');
    expect((details as RemoteRecord).rawJson()).toBe('{"pgid":4242}');
  });

  it('a question reaches the call that asked it, and its answer the tool', async () => {
    const asked: Elicitation[] = [];
    const { output } = await run(find(remote, 'confirm'), '{}', {
      elicitor: (q) => (asked.push(q), { action: 'accept', content: { confirm: true } }),
    });
    expect(asked.map((q) => q.message)).toEqual(['Really?']);
    expect(JSON.parse(output as string)).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('two questions asked together are each answered by their own answer', async () => {
    const before = connected.calls?.();
    const { output } = await run(find(remote, 'regions'), '{}', {
      elicitor: (q) => ({ action: 'accept', content: { region: q.message } }),
    });
    expect(output).toBe('{"region":"us"} {"region":"eu"}');
    // In the 2026-07-28 era both go back with the call, and both answers come back with
    // the one request that follows: two tools/call requests in all.
    if (era === 'modern' && before !== undefined) expect(connected.calls?.()).toBe(before + 2);
  });

  it('progress keeps the origin numbers', async () => {
    const updates: unknown[] = [];
    await run(find(remote, 'proxied'), '{}', {
      call: { id: 'call_1', args: '{}', onUpdate: (u) => updates.push(u.details) },
    });
    expect(updates).toEqual([
      new ProgressInfo(10, 40, 'a quarter'),
      new ProgressInfo(40, 40, 'all'),
    ]);
  });

  it("one client's calls share one session", async () => {
    const first = await run(find(remote, 'whoami'), '{}');
    const second = await run(find(remote, 'whoami'), '{}');
    expect(first.output).toMatch(/^session \d+$/);
    expect(second.output).toBe(first.output);
  });
});

it("two clients' calls do not share a session, in either era over HTTP", async () => {
  const served = server();
  const listener = await served.listenHttp();
  try {
    const outputs: string[] = [];
    for (const protocol of ['legacy', 'modern', 'legacy', 'modern'] as const) {
      const remote = await connectMcp({ transport: { url: listener.url }, protocol });
      try {
        outputs.push(outputText((await run(find(remote, 'whoami'), '{}')).output));
        outputs.push(outputText((await run(find(remote, 'whoami'), '{}')).output));
      } finally {
        await remote.close();
      }
    }
    expect(outputs).toEqual([
      'session 1',
      'session 1',
      'session 2',
      'session 2',
      'session 3',
      'session 3',
      'session 4',
      'session 4',
    ]);
  } finally {
    await served.close();
  }
});
