/**
 * Our client against a scripted 2025-era Streamable HTTP server reached through a fetch
 * function (no network): a server that answers 404 for a session it no longer knows
 * (its instance went away), and one that never answers.
 */
import { AgentToolError, CancelledError, createContext, type Result, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';

interface Posted {
  readonly method: string | undefined;
  readonly session: string | null;
}

/** What a scripted POST is answered with: a JSON-RPC result, a status, or nothing ever. */
type Reply = { result: unknown } | { status: number; body?: string } | 'never';

/**
 * A 2025-era server as a fetch function: `initialize` opens session `s<n>`, `tools/list`
 * lists one tool, `a`, and everything else is answered by `script`.
 */
function scriptedServer(script: (method: string | undefined, session: string | null) => Reply): {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  posted: Posted[];
} {
  const posted: Posted[] = [];
  let sessions = 0;
  const fetch = async (_url: string | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    if (method === 'GET') return new Response(null, { status: 405 });
    if (method === 'DELETE') return new Response(null, { status: 200 });
    const message = JSON.parse(init?.body as string) as {
      id?: number;
      method?: string;
      params?: { protocolVersion?: string };
    };
    const session = new Headers(init?.headers).get('mcp-session-id');
    posted.push({ method: message.method, session });
    const json = (result: unknown, sessionId: string | undefined): Response =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), {
        status: 200,
        headers: {
          'content-type': 'application/json',
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
        },
      });
    if (message.id === undefined) return new Response(null, { status: 202 });
    if (message.method === 'initialize') {
      const reply = sessions === 0 ? undefined : script('initialize', session);
      if (reply === 'never') {
        return new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error)),
        );
      }
      sessions++;
      return json(
        {
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'scripted', version: '1' },
        },
        `s${sessions}`,
      );
    }
    if (message.method === 'tools/list') {
      return json({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] }, undefined);
    }
    const reply = script(message.method, session);
    if (reply === 'never') {
      return new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error)),
      );
    }
    if ('status' in reply) return new Response(reply.body ?? null, { status: reply.status });
    return json(reply.result, undefined);
  };
  return { fetch, posted };
}

async function connect(
  script: Parameters<typeof scriptedServer>[0],
): Promise<{ remote: RemoteTools; posted: Posted[] }> {
  const server = scriptedServer(script);
  const remote = await connectMcp({
    transport: { url: 'http://scripted.test/mcp', fetch: server.fetch },
    protocol: 'legacy',
  });
  return { remote, posted: server.posted };
}

function run(remote: RemoteTools, signal?: AbortSignal): Promise<Result> {
  const tool = remote.tools()[0] as Tool;
  const call = { id: 'call_1', args: '{}' };
  return Promise.resolve(
    tool.execute(call, createContext({ call, ...(signal === undefined ? {} : { signal }) })),
  );
}

const calls = (posted: Posted[]): Posted[] => posted.filter((p) => p.method === 'tools/call');

describe('a 2025-era session the server no longer knows', () => {
  it('makes a call answered 404 once more, in a new session', async () => {
    const { remote, posted } = await connect((method, session) =>
      method === 'tools/call' && session === 's1'
        ? { status: 404, body: 'session not found' }
        : { result: { content: [{ type: 'text', text: `ran in ${session}` }] } },
    );
    try {
      await expect(run(remote)).resolves.toMatchObject({ output: 'ran in s2' });
      expect(calls(posted).map((p) => p.session)).toEqual(['s1', 's2']);
      expect(posted.filter((p) => p.method === 'initialize')).toHaveLength(2);
      // The next call goes straight to the new session.
      await expect(run(remote)).resolves.toMatchObject({ output: 'ran in s2' });
      expect(calls(posted).map((p) => p.session)).toEqual(['s1', 's2', 's2']);
    } finally {
      await remote.close();
    }
  });

  it('ends a call still waiting in the lost session with "connection lost", not running it again', async () => {
    let callsInS1 = 0;
    let waiting: () => void = () => undefined;
    const firstWaits = new Promise<void>((resolve) => (waiting = resolve));
    const { remote, posted } = await connect((method, session) => {
      if (method !== 'tools/call') return { result: {} };
      if (session === 's1' && ++callsInS1 === 1) {
        waiting();
        return 'never';
      }
      if (session === 's1') return { status: 404, body: 'session not found' };
      return { result: { content: [{ type: 'text', text: `ran in ${session}` }] } };
    });
    try {
      const first = run(remote).catch((e: unknown) => e);
      await firstWaits;
      await expect(run(remote)).resolves.toMatchObject({ output: 'ran in s2' });
      const error = await first;
      expect(error).toBeInstanceOf(AgentToolError);
      expect(error).toMatchObject({
        code: 'CONNECTION',
        message: 'mcp: call "a": connection lost: the server no longer knows the session (404)',
      });
      expect(calls(posted).map((p) => p.session)).toEqual(['s1', 's1', 's2']);
    } finally {
      await remote.close();
    }
  });

  it('ends a call at once when it is aborted while the new session is being opened', async () => {
    const interrupt = new AbortController();
    let reopening: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (reopening = resolve));
    const { remote } = await connect((method) => {
      if (method === 'initialize') {
        reopening();
        return 'never';
      }
      return { status: 404, body: 'session not found' };
    });
    try {
      const pending = run(remote, interrupt.signal);
      await asked;
      interrupt.abort();
      const error = await pending.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CancelledError);
      expect((error as Error).message).toBe('mcp: call "a": context canceled');
    } finally {
      await remote.close();
    }
  });
});

describe('a server without sessions', () => {
  it('answering 404 to the GET stream is not a lost session: no new one is opened', async () => {
    const posted: string[] = [];
    let gets = 0;
    let got: () => void = () => undefined;
    const getAnswered = new Promise<void>((resolve) => (got = resolve));
    // Stateless (no Mcp-Session-Id), and no route for GET: 404, as the conformance
    // suite's scenario servers answer.
    const fetch = async (_url: string | URL, init?: RequestInit): Promise<Response> => {
      if ((init?.method ?? 'GET') === 'GET') {
        gets++;
        setTimeout(got, 20);
        return new Response('Not Found', { status: 404 });
      }
      const message = JSON.parse(init?.body as string) as {
        id?: number;
        method?: string;
        params?: { protocolVersion?: string };
      };
      posted.push(message.method ?? '');
      if (message.id === undefined) return new Response(null, { status: 202 });
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'stateless', version: '1' },
            }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'a', inputSchema: { type: 'object' } }] }
            : { content: [{ type: 'text', text: 'ran' }] };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const remote = await connectMcp({
      transport: { url: 'http://stateless.test/mcp', fetch },
      protocol: 'legacy',
    });
    try {
      await getAnswered;
      await expect(run(remote)).resolves.toMatchObject({ output: 'ran' });
      expect(gets).toBeGreaterThan(0);
      expect(posted.filter((m) => m === 'initialize')).toHaveLength(1);
    } finally {
      await remote.close();
    }
  });
});
