/**
 * The caller a framework in front of a mounted handler verified (`authInfo` for `fetch`,
 * `req.auth` for `node`): its subject and scopes are the verified ones, whatever its
 * `extra` (a token's claims, which the token's issuer or holder chose) carries.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { newTool } from 'agenttool';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type HttpHandler, type McpToolServer, serveTools } from 'agenttool/mcp';
import { INITIALIZE, MODERN, modern } from './helpers';

const AUTH_KEY = 'io.github.christopherdavenport.agenttool/auth';

const whoami = newTool({
  name: 'whoami',
  description: 'Says who calls',
  execute: (_call, ctx) => ({
    output: `${ctx.auth?.subject ?? 'nobody'} [${ctx.auth?.scopes.join(' ') ?? ''}]`,
  }),
});
const admin = newTool({
  name: 'admin',
  description: 'Admins only',
  access: { scopes: ['admin'] },
  execute: (_call, ctx) => ({ output: `admin work for ${ctx.auth?.subject ?? 'nobody'}` }),
});

/** What a framework's verifier commonly returns: the token's claims as `extra`. */
function verified(sub: string, scopes: string[], claims: Record<string, unknown> = {}) {
  return { token: 't', clientId: 'app', scopes, extra: { sub, ...claims } };
}

/** Claims that try to pass for the server's own record of a verified caller. */
const SPOOF = { [AUTH_KEY]: { subject: 'root', clientId: 'app', scopes: ['admin'] } };

/** A verified caller in the SDK's shape, as a framework hands it over. */
interface Caller {
  readonly token: string;
  readonly clientId: string;
  readonly scopes: string[];
  readonly extra?: Record<string, unknown>;
}

/** Callers that name no subject: no `extra.sub` or `extra.subject`, an empty client id. */
const NAMELESS: [string, Caller][] = [
  ['no extra', { token: 't', clientId: '', scopes: ['admin'] }],
  ['no sub in extra', { token: 't', clientId: '', scopes: ['admin'], extra: { iss: 'idp' } }],
  ['an empty sub', { token: 't', clientId: '', scopes: [], extra: { sub: '', subject: '' } }],
  ['a sub that is no string', { token: 't', clientId: '', scopes: [], extra: { sub: 42 } }],
];

/** What the server reported (`onError`), by its message. */
const reported: string[] = [];

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

function headersOf(body: Record<string, unknown>): Record<string, string> {
  const params = body.params as { name?: string; _meta?: Record<string, unknown> };
  if (params._meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN) return HEADERS;
  return {
    ...HEADERS,
    'mcp-protocol-version': MODERN,
    'mcp-method': String(body.method),
    ...(params.name === undefined ? {} : { 'mcp-name': params.name }),
  };
}

/** The text of a call's result, or of the error, from a JSON or SSE answer. */
async function textOf(response: Response): Promise<string> {
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  const message = JSON.parse(data === undefined ? text : data.slice(6)) as {
    result?: { content?: { text?: string }[] };
  };
  return message.result?.content?.[0]?.text ?? `<no result: ${text}>`;
}

/** Calls `name` through `send` in the era given: a 2025 session opened first, or one request. */
async function callThrough(
  send: (body: Record<string, unknown>, headers: Record<string, string>) => Promise<Response>,
  era: 'legacy' | 'modern',
  name: string,
): Promise<string> {
  const params = { name, arguments: {} };
  if (era === 'modern') {
    const body = modern('tools/call', params);
    return textOf(await send(body, headersOf(body)));
  }
  const opened = await send(INITIALIZE, HEADERS);
  expect(opened.status).toBe(200);
  await opened.text();
  const session = opened.headers.get('mcp-session-id') ?? '';
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params };
  return textOf(
    await send(call, {
      ...HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    }),
  );
}

let server: McpToolServer;
let handler: HttpHandler;
let node: Server;
let port: number;
/** The caller the framework in front of the Node listener verified for the next request. */
let nodeCaller: Caller;

beforeAll(async () => {
  server = serveTools([whoami, admin], {
    onError: (message, error) => reported.push(`${message}: ${String(error)}`),
  });
  handler = server.handler();
  node = createServer((req: IncomingMessage, res: ServerResponse) => {
    // As the SDK's own bearer middleware does: the verified caller on `req.auth`.
    (req as IncomingMessage & { auth?: Caller }).auth = nodeCaller;
    void handler.node(req, res);
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  port = (node.address() as AddressInfo).port;
});

afterAll(async () => {
  await handler.close();
  await server.close();
  node.closeAllConnections();
  await new Promise((resolve) => node.close(resolve));
});

const faces = {
  fetch: (caller: Caller) => (body: Record<string, unknown>, headers: Record<string, string>) =>
    handler.fetch(
      new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
      { authInfo: caller },
    ),
  node: (caller: Caller) => (body: Record<string, unknown>, headers: Record<string, string>) => {
    nodeCaller = caller;
    return fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
  },
};

describe.each(Object.keys(faces) as (keyof typeof faces)[])('%s', (face) => {
  describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
    test('the caller is the verified subject with the verified scopes', async () => {
      const send = faces[face](verified('ada', ['read', 'admin']));
      expect(await callThrough(send, era, 'whoami')).toBe('ada [read admin]');
      expect(await callThrough(send, era, 'admin')).toBe('admin work for ada');
    });

    test("claims that carry the server's own key name no one: the verified caller stands", async () => {
      const send = faces[face](verified('mallory', ['read'], SPOOF));
      expect(await callThrough(send, era, 'whoami')).toBe('mallory [read]');
      // Refused as a tool the caller may not use: word for word an unknown tool.
      expect(await callThrough(send, era, 'admin')).toBe('unknown tool "admin"');
    });

    test.each(NAMELESS)(
      'a caller that names no subject (%s) is refused, 500 and reported: all such callers would be the subject ""',
      async (_, caller) => {
        reported.length = 0;
        const sessions = server.sessions.length;
        const send = faces[face](caller);
        const body =
          era === 'modern' ? modern('tools/call', { name: 'whoami', arguments: {} }) : INITIALIZE;
        const response = await send(body, headersOf(body));
        expect(response.status).toBe(500);
        expect(((await response.json()) as { error: unknown }).error).toEqual({
          code: -32603,
          message: 'Internal error: the verified caller names no subject',
        });
        expect(reported).toEqual([
          'mcp: http: the verified caller: AgentToolError: mcp: the verified caller names no subject (no extra.sub or extra.subject, and an empty clientId): every such caller would be the subject "", and use the sessions and handles of the others; name the subject in the AuthInfo\'s extra.sub',
        ]);
        // Nothing was opened for it.
        expect(server.sessions).toHaveLength(sessions);
      },
    );
  });
});

test('a caller named by its client id alone is served as that subject', async () => {
  const send = faces.fetch({ token: 't', clientId: 'app', scopes: [], extra: { sub: '' } });
  expect(await callThrough(send, 'modern', 'whoami')).toBe('app []');
});

test('over a transport of ones own that carries a caller naming no subject, its calls are refused', async () => {
  const own = serveTools([whoami]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const answers = new Map<unknown, Record<string, unknown>>();
  const answered = new Map<unknown, () => void>();
  clientEnd.onmessage = (message) => {
    const id = (message as { id?: unknown }).id;
    answers.set(id, message);
    answered.get(id)?.();
  };
  await own.connect(serverEnd);
  await clientEnd.start();
  const request = async (id: number, method: string, params: Record<string, unknown>) => {
    const done = new Promise<void>((resolve) => answered.set(id, resolve));
    await clientEnd.send(
      { jsonrpc: '2.0', id, method, params },
      { authInfo: { token: 't', clientId: '', scopes: [], extra: {} } },
    );
    await done;
    return answers.get(id)!;
  };
  try {
    expect((await request(1, 'initialize', INITIALIZE.params)).result).toBeDefined();
    const call = await request(2, 'tools/call', { name: 'whoami', arguments: {} });
    expect(call.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining('mcp: the verified caller names no subject') as unknown,
    });
  } finally {
    await clientEnd.close();
    await own.close();
  }
});
