// The part of a start-up child every contender shares: connect the SDK Client over an
// in-memory pair, complete the first tools/list, check it and print the timings.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

/** How many tools each contender registers. */
export const TOOLS = 200;

/** Milliseconds, as a start-up child prints them (performance.now(): since process start). */
export interface StartupTimings {
  /** Process start to the end of the imports (node's own start-up included). */
  readonly imported: number;
  /** Defining and constructing the tools and the server, registering the tools. */
  readonly register: number;
  /** Connecting the client (initialize) over the in-memory pair. */
  readonly connect: number;
  /** The first tools/list. */
  readonly list: number;
  /** Process start to the first tools/list answered. */
  readonly total: number;
  /** The process's CPU time (user + system) up to the first tools/list answered. */
  readonly cpu: number;
}

/**
 * Connects a client to the server `connect` serves, lists the tools once, checks the
 * list (TOOLS tools of five arguments each), prints the timings as one JSON line and
 * closes.
 */
export async function listOnce(
  imported: number,
  registered: number,
  connect: (transport: InMemoryTransport) => Promise<unknown>,
  close: () => Promise<unknown>,
): Promise<void> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '0' });
  await Promise.all([connect(serverSide), client.connect(clientSide)]);
  const connected = performance.now();
  const { tools } = await client.listTools();
  const listed = performance.now();
  const used = process.cpuUsage();
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
  await close();
  console.log(JSON.stringify(timings));
}

/** Runs a child's main, exiting non-zero with the error on stderr when it fails. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
