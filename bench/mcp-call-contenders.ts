/**
 * The contenders of the `tools/call` benchmark, each one server connected to the SDK
 * `Client` over `InMemoryTransport.createLinkedPair()`, checked to answer the no-op call
 * and to refuse a bad argument before it is measured.
 */
import Ajv from 'ajv';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { AGENTTOOL, FASTMCP, FLOOR, FLOOR_HOOKS, MCP_SERVER } from './mcp-call-plan';
import { NOOP_ARGS, NOOP_DESCRIPTION, noopJsonSchema } from './mcp-noop';
import { decoratedNoop } from './mcp-noop-decorated';
import { noopZodShape } from './mcp-noop-zod';

export const NAME = 'noop';
const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };

export interface Contender {
  readonly name: string;
  readonly client: Client;
  readonly close: () => Promise<void>;
}

async function linked(
  name: string,
  serve: (transport: InMemoryTransport) => Promise<unknown>,
  close: () => Promise<unknown>,
): Promise<Contender> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '0' });
  // fastmcp's connect waits for the client's initialize, so both sides start together.
  await Promise.all([serve(serverSide), client.connect(clientSide)]);
  const result = (await client.callTool({ name: NAME, arguments: { ...NOOP_ARGS } })) as {
    content?: { text?: string }[];
    isError?: boolean;
  };
  if (result.isError === true || result.content?.[0]?.text !== 'ok') {
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

/** The floor: the low-level SDK server, a Map lookup and a precompiled ajv validator. */
function floor(name = FLOOR): Promise<Contender> {
  const validate = new Ajv().compile(noopJsonSchema());
  const definition = { name: NAME, description: NOOP_DESCRIPTION, inputSchema: noopJsonSchema() };
  const tools = new Map([[NAME, () => OK]]);
  const server = new Server({ name: 'floor', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [definition] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const run = tools.get(request.params.name);
    if (run === undefined) {
      return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
    }
    if (!validate(request.params.arguments ?? {})) {
      return { content: [{ type: 'text', text: 'invalid arguments' }], isError: true };
    }
    return run();
  });
  return linked(
    name,
    (t) => server.connect(t),
    () => server.close(),
  );
}

function agenttool(): Promise<Contender> {
  const Noop = decoratedNoop(NAME);
  const server = serveTools([toolFromInstance(new Noop())]);
  return linked(
    AGENTTOOL,
    (t) => server.connect(t),
    () => server.close(),
  );
}

function mcpServer(): Promise<Contender> {
  const server = new McpServer({ name: 'mcpserver', version: '0' });
  server.registerTool(
    NAME,
    { description: NOOP_DESCRIPTION, inputSchema: noopZodShape() },
    () => OK,
  );
  return linked(
    MCP_SERVER,
    (t) => server.connect(t),
    () => server.close(),
  );
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
  return floor(FLOOR_HOOKS);
}

/** Every contender by its name in the tables. */
export const CONTENDERS: ReadonlyMap<string, () => Promise<Contender>> = new Map([
  [FLOOR, () => floor()],
  [FLOOR_HOOKS, floorHooksOn],
  [AGENTTOOL, agenttool],
  [MCP_SERVER, mcpServer],
  [FASTMCP, fastmcp],
]);
