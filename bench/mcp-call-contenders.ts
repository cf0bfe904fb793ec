/**
 * The contenders of the `tools/call` benchmark, each one server and the SDK v2 `Client`
 * that calls it, checked to answer the no-op call and to refuse a bad argument before
 * it is measured. In the 2025 era the client is connected over the SDK's in-memory
 * pair; in the 2026-07-28 era it speaks to the server's web-standard handler, called in
 * process through the Streamable HTTP client transport's `fetch` (the SDK's own
 * in-process recipe), so each request is served as over HTTP, without sockets.
 */
import Ajv from 'ajv';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type CallToolResult,
  createMcpHandler,
  InMemoryTransport,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  McpServer,
  Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import {
  AGENTTOOL,
  contenderKey,
  type Era,
  FASTMCP,
  FLOOR,
  FLOOR_HOOKS,
  FLOOR_OWN_ZOD,
  FLOOR_TOLD,
  MCP_SERVER,
} from './mcp-call-plan';
import { NOOP_ARGS, NOOP_DESCRIPTION, noopJsonSchema } from './mcp-noop';
import { decoratedNoop } from './mcp-noop-decorated';
import { noopZodShape } from './mcp-noop-zod';

export const NAME = 'noop';

export interface Contender {
  readonly name: string;
  readonly client: Client;
  readonly close: () => Promise<void>;
}

/** Checks that the contender answers the no-op call and refuses a bad argument. */
async function checked(
  name: string,
  client: Client,
  close: () => Promise<unknown>,
): Promise<Contender> {
  const result = await client.callTool({ name: NAME, arguments: { ...NOOP_ARGS } });
  const first = (result.content as { text?: string }[] | undefined)?.[0];
  if (result.isError === true || first?.text !== 'ok') {
    throw new Error(`${name}: the no-op call did not answer ok: ${JSON.stringify(result)}`);
  }
  // Each contender validates: a bad argument is refused (an error result or, for fastmcp,
  // a JSON-RPC error).
  const bad = await client.callTool({ name: NAME, arguments: { ...NOOP_ARGS, count: 'x' } }).then(
    (r) => r.isError === true,
    () => true,
  );
  if (!bad) throw new Error(`${name}: invalid arguments were not refused`);
  return {
    name,
    client,
    close: async () => {
      await client.close();
      await close();
    },
  };
}

/** A 2025-era contender over the in-memory pair. */
async function linked(
  name: string,
  serve: (transport: InMemoryTransport) => Promise<unknown>,
  close: () => Promise<unknown>,
): Promise<Contender> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '0' });
  // fastmcp's connect waits for the client's initialize, so both sides start together.
  await Promise.all([serve(serverSide), client.connect(clientSide)]);
  return checked(name, client, close);
}

/** A 2026-07-28 contender: its fetch handler, called in process. */
async function fetched(
  name: string,
  handler: { fetch(request: Request): Promise<Response> },
  close: () => Promise<unknown>,
): Promise<Contender> {
  const client = new Client(
    { name: 'bench', version: '0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return checked(name, client, close);
}

/**
 * The SDK's low-level `Server`, dispatching as agenttool's servers do: a request or a
 * notification is told by its members and checked with its own guard before the SDK's
 * dispatch, which tries a result's and an error's schema first. A zod `safeParse` that
 * fails keeps the value it failed on alive until the next full collection, so the plain
 * floor pays for that retention at every young collection; this floor does not, and
 * measures what agenttool's call path costs beside the same dispatch.
 */
class RequestFirstServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const dispatch = transport.onmessage!;
    const onRequest = (this as unknown as Record<string, (m: unknown, e: unknown) => void>)
      ._onrequest!;
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const plain = !('result' in message) && !('error' in message) && 'method' in message;
      if (plain && 'id' in message && isJSONRPCRequest(message)) {
        onRequest.call(this, message, extra);
      } else if (plain && !('id' in message) && isJSONRPCNotification(message)) {
        this._onnotification(message, extra);
      } else dispatch(message, extra);
    };
  }
}

/**
 * The floor's server: the low-level SDK server, a Map lookup, a precompiled ajv
 * validator, and the tool's text shaped into a result per call (as a server must).
 */
export function floorServer(validate: (value: unknown) => boolean, told = false): Server {
  const definition = { name: NAME, description: NOOP_DESCRIPTION, inputSchema: noopJsonSchema() };
  const tools = new Map([[NAME, (): string => 'ok']]);
  const kind = told ? RequestFirstServer : Server;
  const server = new kind({ name: 'floor', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [definition] }));
  server.setRequestHandler('tools/call', (request) => {
    const run = tools.get(request.params.name);
    if (run === undefined) {
      return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
    }
    if (!validate(request.params.arguments ?? {})) {
      return { content: [{ type: 'text', text: 'invalid arguments' }], isError: true };
    }
    const result: CallToolResult = { content: [{ type: 'text', text: run() }] };
    return result;
  });
  return server;
}

/** The SDK's `McpServer` with the no-op tool as a zod object. */
export function mcpServer(): McpServer {
  const server = new McpServer({ name: 'mcpserver', version: '0' });
  server.registerTool(
    NAME,
    { description: NOOP_DESCRIPTION, inputSchema: z.object(noopZodShape()) },
    (): CallToolResult => ({ content: [{ type: 'text', text: 'ok' }] }),
  );
  return server;
}

function floor(era: Era, name = FLOOR): Promise<Contender> {
  const validate = new Ajv().compile(noopJsonSchema());
  const told = name === FLOOR_TOLD;
  if (era === '2025') {
    const server = floorServer(validate, told);
    return linked(
      name,
      (t) => server.connect(t),
      () => server.close(),
    );
  }
  // The 2026-07-28 entry builds a server per request from the factory.
  const handler = createMcpHandler(() => floorServer(validate, told), { legacy: 'reject' });
  return fetched(name, handler, () => handler.close());
}

function agenttool(era: Era): Promise<Contender> {
  const Noop = decoratedNoop(NAME);
  const server = serveTools([toolFromInstance(new Noop())]);
  if (era === '2025') {
    return linked(
      AGENTTOOL,
      (t) => server.connect(t),
      () => server.close(),
    );
  }
  return fetched(AGENTTOOL, server.handler(), () => server.close());
}

function sdkMcpServer(era: Era): Promise<Contender> {
  if (era === '2025') {
    const server = mcpServer();
    return linked(
      MCP_SERVER,
      (t) => server.connect(t),
      () => server.close(),
    );
  }
  const handler = createMcpHandler(() => mcpServer(), { legacy: 'reject' });
  return fetched(MCP_SERVER, handler, () => handler.close());
}

const quiet = (): void => undefined;

async function fastmcp(): Promise<Contender> {
  const { FastMCP } = await import('fastmcp');
  const server = new FastMCP({
    name: 'fastmcp',
    version: '0.0.0',
    ping: { enabled: false },
    roots: { enabled: false },
    logger: { debug: quiet, error: quiet, info: quiet, log: quiet, warn: quiet },
  });
  server.addTool({
    name: NAME,
    description: NOOP_DESCRIPTION,
    parameters: z.object(noopZodShape()),
    execute: async () => 'ok',
  });
  let session: { close(): Promise<void> } | undefined;
  return linked(
    FASTMCP,
    // fastmcp builds on the v1 SDK; its connect takes any transport of the same shape.
    async (t) => (session = await server.connect(t)),
    async () => session?.close(),
  );
}

/**
 * The floor in a process where AsyncLocalStorage has run once: on Node 20 that turns on
 * promise hooks process-wide (client and transport included), as our server does on
 * its first call. Its ratio to the floor is the share of that tax.
 */
function floorHooksOn(): Promise<Contender> {
  new AsyncLocalStorage<number>().run(0, () => undefined);
  return floor('2025', FLOOR_HOOKS);
}

/** Every contender by its key, `<era>/<name>`. */
export const CONTENDERS: ReadonlyMap<string, () => Promise<Contender>> = new Map([
  [contenderKey('2025', FLOOR), () => floor('2025')],
  [contenderKey('2025', FLOOR_HOOKS), floorHooksOn],
  [contenderKey('2025', FLOOR_TOLD), () => floor('2025', FLOOR_TOLD)],
  [contenderKey('2025', FLOOR_OWN_ZOD), () => floor('2025', FLOOR_OWN_ZOD)],
  [contenderKey('2025', AGENTTOOL), () => agenttool('2025')],
  [contenderKey('2025', MCP_SERVER), () => sdkMcpServer('2025')],
  [contenderKey('2025', FASTMCP), fastmcp],
  [contenderKey('2026-07-28', FLOOR), () => floor('2026-07-28')],
  [contenderKey('2026-07-28', FLOOR_TOLD), () => floor('2026-07-28', FLOOR_TOLD)],
  [contenderKey('2026-07-28', FLOOR_OWN_ZOD), () => floor('2026-07-28', FLOOR_OWN_ZOD)],
  [contenderKey('2026-07-28', AGENTTOOL), () => agenttool('2026-07-28')],
  [contenderKey('2026-07-28', MCP_SERVER), () => sdkMcpServer('2026-07-28')],
]);
