/**
 * Regression: an ended session is let go of at once. Each session's idle clock was
 * stopped when the session ended, then re-armed by the end of a request still in flight
 * (a 2025-era DELETE is one, so is a GET stream the session's end closes, or a call its
 * end stops), and its timer held the whole session (SDK instance, transport, session)
 * for `idleTimeoutMs`, 30 minutes by default.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { newTool, type Session, type Tool } from 'agenttool';
import {
  type HttpHandler,
  type McpToolServer,
  serveTools,
  SESSION_END_METHOD,
  SESSION_META_KEY,
  SESSIONS_EXTENSION,
} from 'agenttool/mcp';
import { deferred } from './helpers';
import { modern as modernRequest } from '../auth/helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** True once nothing holds `ref`'s target (a few collections, a turn of the loop apart). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    // A WeakRef read in this turn holds its target until the turn ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

const echo = newTool({
  name: 'echo',
  description: 'Echoes',
  execute: () => ({ output: 'echo' }),
});

const servers: McpToolServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server's fetch handler, with the default idle timeout (30 min) an ended session must not wait for. */
function endpoint(...tools: Tool[]): {
  server: McpToolServer;
  handler: HttpHandler;
} {
  const server = serveTools(tools);
  servers.push(server);
  return { server, handler: server.handler() };
}

const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** The JSON-RPC answer of a response, plain JSON or the first answer of an event stream. */
async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  return (
    events.find((message) => 'result' in message || 'error' in message) ??
    (JSON.parse(text) as Record<string, unknown>)
  );
}

describe('a 2025-era session', () => {
  /** Opens a session, calls a tool in it; the headers that name it. */
  async function open(handler: HttpHandler): Promise<Record<string, string>> {
    const post = (body: object, headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { ...JSON_HEADERS, ...headers },
          body: JSON.stringify(body),
        }),
      );
    const opened = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'ended', version: '0' },
      },
    });
    await opened.text();
    const headers = {
      'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
    const called = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      headers,
    );
    expect(await answerOf(called)).toMatchObject({ result: { content: [{ text: 'echo' }] } });
    return headers;
  }

  test('ended by DELETE is let go of', async () => {
    const { server, handler } = endpoint(echo);
    const headers = await open(handler);
    const session = new WeakRef<Session>(server.sessions[0]!);
    const deleted = await handler.fetch(
      new Request('http://localhost/mcp', { method: 'DELETE', headers }),
    );
    await deleted.text();
    expect(deleted.status).toBe(200);
    expect(server.sessions).toHaveLength(0);
    expect(await collected(session)).toBe(true);
  });

  test('ended by its endpoint closing under an open GET stream is let go of', async () => {
    const { server, handler } = endpoint(echo);
    const headers = await open(handler);
    const session = new WeakRef<Session>(server.sessions[0]!);
    const stream = await handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'GET',
        headers: { ...headers, accept: 'text/event-stream' },
      }),
    );
    expect(stream.status).toBe(200);
    const read = stream.text();
    await handler.close();
    await read;
    expect(server.sessions).toHaveLength(0);
    expect(await collected(session)).toBe(true);
  });
});

describe('a 2026-07-28 session held by handle', () => {
  const MODERN = '2026-07-28';
  const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

  async function modern(
    handler: HttpHandler,
    id: number,
    method: string,
    params: Record<string, unknown>,
    meta: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const named = params.name ?? params.taskId;
    const name = typeof named === 'string' ? { 'mcp-name': named } : {};
    const body = modernRequest(
      method,
      params,
      {
        'io.modelcontextprotocol/clientInfo': { name: 'ended', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': {
          extensions: { [SESSIONS_EXTENSION]: {}, [TASKS_EXTENSION]: {} },
        },
        ...meta,
      },
      id,
    );
    const response = await handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...name },
        body: JSON.stringify(body),
      }),
    );
    return answerOf(response);
  }

  test('ended while its task runs is let go of once the task is over', async () => {
    const started = deferred();
    const release = deferred();
    const job = newTool({
      name: 'job',
      description: 'Runs as a task until released',
      taskSupport: 'required',
      execute: async () => {
        started.resolve();
        await release.promise;
        return { output: 'done' };
      },
    });
    const { server, handler } = endpoint(echo, job);
    const first = await modern(handler, 1, 'tools/call', { name: 'echo', arguments: {} });
    const handle = (first.result as { _meta?: Record<string, unknown> })._meta?.[SESSION_META_KEY];
    expect(typeof handle).toBe('string');
    const meta = { [SESSION_META_KEY]: handle };
    const session = new WeakRef<Session>(server.sessions[0]!);
    const made = await modern(handler, 2, 'tools/call', { name: 'job', arguments: {} }, meta);
    const taskId = (made.result as { taskId?: unknown }).taskId;
    expect(typeof taskId).toBe('string');
    await started.promise;
    // The session ends under the task, which runs on and gives its lease back after.
    await modern(handler, 3, SESSION_END_METHOD, {}, meta);
    expect(server.sessions).toHaveLength(0);
    release.resolve();
    let status: unknown;
    for (let id = 4; status !== 'completed' && id < 500; id++) {
      const got = await modern(handler, id, 'tasks/get', { taskId });
      status = (got.result as { status?: unknown }).status;
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe('completed');
    expect(await collected(session)).toBe(true);
  });
});
