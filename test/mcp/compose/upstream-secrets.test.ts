/**
 * A composed server's credentials stay with the composition: an upstream on 127.0.0.1
 * (a plain HTTP server speaking 2025-era MCP) quotes the headers and the URL it was sent
 * in its HTTP 500 pages, JSON-RPC errors and error results, and the clients of the
 * composition (the SDK's own `Client`, over Streamable HTTP, as a remote caller) see
 * those failures with the credentials taken out; so do the reports (`onWarning`) and the
 * status of a server that fails to start, down to a bearer token or a Basic password
 * quoted alone.
 */
import * as http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createContext } from 'agenttool';
import {
  type HttpListener,
  McpServers,
  type McpToolServer,
  ServerBusyError,
  serveTools,
} from 'agenttool/mcp';
import { listenOnLoopback } from '../../support/loopback-http';

const TOKEN = 'SUPERSECRETTOKEN42';
const API_KEY = 'KEY-abcdef';
const QUERY = 'QUERYSECRET123';
const DOWN_TOKEN = 'DOWNTOKEN-77';
const BASIC_USER = 'ghp_usertoken';
const BASIC_PASSWORD = 'PASSW0RD-basic';
const BASIC = Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64');
/** Every credential of the configuration, as a server may quote it. */
const SECRETS = [TOKEN, API_KEY, QUERY, DOWN_TOKEN, BASIC, BASIC_USER, BASIC_PASSWORD];

type JsonRpc = { id?: number | string; method?: string; params?: Record<string, unknown> };

/**
 * The upstream: at `/mcp` a server with tools, a prompt and a resource whose failures
 * quote what each request carried; at `/down` and `/basic` one that answers its
 * `initialize` with an HTTP 500 quoting the credential alone.
 */
function upstream(): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpc;
      const auth = req.headers.authorization ?? '';
      const bare = auth.replace(/^\S+ /, '');
      const quoted = `got Authorization: ${auth}; x-api-key ${String(req.headers['x-api-key'])}; url ${req.url ?? ''}`;
      const page = (text: string): void => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(text);
      };
      const answer = (body: Record<string, unknown>): void => {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
      };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const path = (req.url ?? '').split('?')[0];
      const params = message.params ?? {};
      switch (message.method) {
        case 'initialize':
          if (path === '/down') return page(`upstream rejected token ${bare}`);
          if (path === '/basic') {
            const decoded = Buffer.from(bare, 'base64').toString('utf8');
            return page(`no such user:password ${decoded}; user ${decoded.split(':')[0] ?? ''}`);
          }
          return answer({
            result: {
              protocolVersion: params['protocolVersion'],
              capabilities: { tools: {}, prompts: {}, resources: {} },
              serverInfo: { name: 'quoting', version: '1' },
            },
          });
        case 'tools/list':
          return answer({
            result: {
              tools: ['crash', 'busy', 'refuse', 'fail', 'answer'].map((name) => ({
                name,
                inputSchema: { type: 'object' },
              })),
            },
          });
        case 'tools/call':
          switch (params['name']) {
            case 'crash':
              return page(quoted);
            case 'busy':
              res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '2' });
              res.end(`slow down, ${bare}`);
              return;
            case 'refuse':
              return answer({ error: { code: -32603, message: `bad credential ${bare}` } });
            case 'fail':
              return answer({
                result: { content: [{ type: 'text', text: `refused ${bare}` }], isError: true },
              });
            default:
              return answer({ result: { content: [{ type: 'text', text: `you are ${bare}` }] } });
          }
        case 'prompts/list':
          return answer({ result: { prompts: [{ name: 'hello' }] } });
        case 'prompts/get':
          return answer({ error: { code: -32603, message: `bad credential ${bare}` } });
        case 'resources/list':
          return answer({ result: { resources: [{ name: 'note', uri: 'note://a' }] } });
        case 'resources/templates/list':
          return answer({ result: { resourceTemplates: [] } });
        case 'resources/read':
          return page(quoted);
        default:
          return answer({ result: {} });
      }
    });
  });
}

const warnings: string[] = [];
let closeUpstream: () => Promise<void>;
let servers: McpServers;
let served: McpToolServer;
let listener: HttpListener;
let client: Client;

beforeAll(async () => {
  const listening = await listenOnLoopback(upstream());
  closeUpstream = listening.close;
  const base = listening.url.replace(/\/mcp$/, '');
  servers = await McpServers.start(
    {
      mcpServers: {
        gh: {
          type: 'http',
          url: `${base}/mcp?api_key=${QUERY}`,
          headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': API_KEY },
          protocol: 'legacy',
        },
        down: {
          url: `${base}/down`,
          headers: { Authorization: `Bearer ${DOWN_TOKEN}` },
          protocol: 'legacy',
        },
        basic: {
          url: `${base}/basic`,
          headers: { Authorization: `Basic ${BASIC}` },
          protocol: 'legacy',
        },
      },
      retry: { maxAttempts: 1 },
    },
    { onWarning: (m) => void warnings.push(m) },
  );
  served = serveTools(servers);
  listener = await served.listenHttp({ port: 0 });
  client = new Client({ name: 'remote-caller', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await served?.close();
  await servers?.close();
  await closeUpstream?.();
});

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

/** The text of a call's one text block, and whether it is an error result. */
async function call(name: string): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: {} });
  const content = result.content as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
}

async function rejection(request: Promise<unknown>): Promise<string> {
  return request.then(
    () => 'it did not fail',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}

describe('a composed server that quotes its credentials', () => {
  it('fails a call answered HTTP 500 without them', async () => {
    const { text, isError } = await call('gh__crash');
    expect(isError).toBe(true);
    expect(text).toBe(
      'mcp server "gh": mcp: call "crash": the server answered HTTP 500 Internal Server Error: got Authorization: ***; x-api-key ***; url /mcp?api_key=***',
    );
  });

  it('fails a call answered with a JSON-RPC error without them', async () => {
    const { text, isError } = await call('gh__refuse');
    expect(isError).toBe(true);
    expect(text).toBe('mcp server "gh": mcp: call "refuse": bad credential ***');
  });

  it('passes an error result on without them', async () => {
    expect(await call('gh__fail')).toEqual({ text: 'refused ***', isError: true });
  });

  it('fails a refused call without them, still a refusal saying when to try again', async () => {
    const busy = servers.tools.find((t) => t.name === 'gh__busy');
    if (busy === undefined) throw new Error('gh__busy is not served');
    const request = { id: 'c1', args: '{}' };
    const refused = await Promise.resolve(
      busy.execute(request, createContext({ call: request })),
    ).then(
      () => new Error('it did not fail'),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ServerBusyError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 2 });
    expect((refused as Error).message).toContain('slow down, ***');
    expectNoSecret((refused as Error).message);
    expectNoSecret(String((refused as Error).stack));
  });

  it('passes a successful answer on as the server gave it: it is the server’s own', async () => {
    expect(await call('gh__answer')).toEqual({ text: `you are ${TOKEN}`, isError: false });
  });

  it('fails a prompt and a resource read without them', async () => {
    const prompt = await rejection(client.getPrompt({ name: 'gh__hello' }));
    expect(prompt).toContain('bad credential ***');
    expectNoSecret(prompt);
    const read = await rejection(client.readResource({ uri: 'note://a' }));
    expect(read).toContain('got Authorization: ***');
    expectNoSecret(read);
  });

  it('reports a server that never started without the bare token or Basic password', () => {
    const status = Object.fromEntries(servers.status.map((s) => [s.name, s]));
    expect(status['down']).toMatchObject({
      state: 'given-up',
      error:
        'could not start: mcp: connect: the server answered HTTP 500 Internal Server Error: upstream rejected token ***',
    });
    expect(status['basic']).toMatchObject({
      state: 'given-up',
      error:
        'could not start: mcp: connect: the server answered HTTP 500 Internal Server Error: no such user:password ***; user ***',
    });
    expect(warnings.filter((w) => /"(down|basic)"/.test(w))).toHaveLength(2);
    for (const warning of warnings) expectNoSecret(warning);
  });
});
