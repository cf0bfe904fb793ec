// The part of a start-up child every contender shares: connect the SDK v2 Client (2025
// era: over an in-memory pair; 2026-07-28: through the server's fetch handler, called in
// process), complete the first tools/list, check it and print the timings. The client
// is the harness's, not the contender's: it is imported once the server is registered,
// and its import is left out of every figure (a server a host spawns never loads one,
// and agenttool's bundle would otherwise pay for a second copy of the SDK's core and zod
// that McpServer shares with it).
import { createRequire } from 'node:module';
import type { Client, InMemoryTransport } from '@modelcontextprotocol/client';

type ClientModule = typeof import('@modelcontextprotocol/client');

/** How many tools each contender registers. */
export const TOOLS = 200;

/** The era a start-up child serves: `2025` or `2026-07-28` (its first argument). */
export type StartupEra = '2025' | '2026-07-28';

/** Milliseconds, as a start-up child prints them (performance.now(): since process start). */
export interface StartupTimings {
  /** Process start to the end of the imports (node's own start-up included). */
  readonly imported: number;
  /** Defining and constructing the tools and the server, registering the tools. */
  readonly register: number;
  /** Connecting the client (initialize, or the server/discover probe). */
  readonly connect: number;
  /** The first tools/list. */
  readonly list: number;
  /** Process start to the first tools/list answered, less the harness's client import. */
  readonly total: number;
  /** The process's CPU time (user + system) up to the same point, less the same import. */
  readonly cpu: number;
}

/** How a contender is reached in each era. */
export interface Served {
  /** 2025: serves one connection over the transport. */
  readonly connect: (transport: InMemoryTransport) => Promise<unknown>;
  /** 2026-07-28: answers one request. */
  readonly fetch: (request: Request) => Promise<Response>;
  readonly close: () => Promise<unknown>;
}

/** The era named on the command line. */
export function startupEra(): StartupEra {
  return process.argv[2] === '2026-07-28' ? '2026-07-28' : '2025';
}

/**
 * Connects a client to the server, lists the tools once, checks the list (TOOLS tools
 * of five arguments each), prints the timings as one JSON line and closes.
 */
export async function listOnce(
  imported: number,
  registered: number,
  served: Served,
): Promise<void> {
  const importStart = performance.now();
  const importCpu = process.cpuUsage();
  const { Client, InMemoryTransport, StreamableHTTPClientTransport } = createRequire(__filename)(
    '@modelcontextprotocol/client',
  ) as ClientModule;
  const harnessCpu = process.cpuUsage(importCpu);
  const harness = performance.now() - importStart;
  let client: Client;
  if (startupEra() === '2025') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'bench', version: '0' });
    await Promise.all([served.connect(serverSide), client.connect(clientSide)]);
  } else {
    client = new Client(
      { name: 'bench', version: '0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
        fetch: (url, init) => served.fetch(new Request(url, init)),
      }),
    );
  }
  const connected = performance.now() - harness;
  const { tools } = await client.listTools();
  const listed = performance.now() - harness;
  const used = process.cpuUsage();
  used.user -= harnessCpu.user;
  used.system -= harnessCpu.system;
  const properties = Object.keys(tools[TOOLS - 1]?.inputSchema.properties ?? {});
  if (tools.length !== TOOLS || properties.length !== 5) {
    throw new Error(`listed ${tools.length} tools, the last with ${properties.join(', ')}`);
  }
  const timings: StartupTimings = {
    imported,
    register: registered - imported,
    connect: connected - registered,
    list: listed - connected,
    total: listed,
    cpu: (used.user + used.system) / 1000,
  };
  await client.close();
  await served.close();
  console.log(JSON.stringify(timings));
}

/** Runs a child's main, exiting non-zero with the error on stderr when it fails. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
