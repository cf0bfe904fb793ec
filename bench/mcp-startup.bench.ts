/**
 * Start-up in a fresh process, in both protocol eras: define and construct 200
 * decorated tools, register them on agenttool's server, connect the SDK v2 Client and
 * complete the first tools/list; against the SDK's McpServer registering the same 200
 * tools with zod. 2025 era: the client connects over an in-memory pair; 2026-07-28: it
 * speaks to the server's fetch handler in process (McpServer behind createMcpHandler,
 * its factory building the server per request). Each contender is a child process
 * (mcp-startup-agenttool, mcp-startup-mcpserver), spawned RUNS times per era, the two
 * alternating; a figure is the median over its runs. Every child imports what it needs
 * and nothing else; both load the SDK Client.
 */
import { median, runChild } from './mcp-child';
import { type StartupTimings, TOOLS } from './mcp-startup-list';
import { type Figure, report } from './measure';

const RUNS = 9;
const AGENTTOOL = 'agenttool serveTools';
const MCP_SERVER = 'SDK McpServer + zod';
const CHILDREN: readonly [string, string][] = [
  [AGENTTOOL, 'mcp-startup-agenttool.js'],
  [MCP_SERVER, 'mcp-startup-mcpserver.js'],
];

interface Run extends StartupTimings {
  readonly wall: number;
}

async function main(): Promise<void> {
  for (const era of ['2025', '2026-07-28']) await eraTables(era);
  console.log(
    `\n  Target: agenttool at most 0.9x McpServer on the first line. Medians of ${RUNS} fresh` +
      '\n  processes per contender, alternating; times from performance.now() in the child.',
  );
}

async function eraTables(era: string): Promise<void> {
  const runs = new Map<string, Run[]>(CHILDREN.map(([name]) => [name, []]));
  // One warm-up each, so the file system cache is as warm for the first as the last.
  for (const [, file] of CHILDREN) await runChild(file, [era]);
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? CHILDREN : [...CHILDREN].reverse();
    for (const [name, file] of order) {
      const { value, wallNs } = await runChild<StartupTimings>(file, [era]);
      runs.get(name)!.push({ ...value, wall: wallNs / 1e6 });
    }
  }
  const table = (title: string, pick: (run: Run) => number): void => {
    const figures: Figure[] = CHILDREN.map(([name]) => ({
      name,
      nsPerOp: median(runs.get(name)!.map(pick)) * 1e6,
    }));
    report(title, figures, MCP_SERVER);
  };
  const what = `${TOOLS} tools of 5 arguments`;
  table(
    `protocol ${era}: start-up to the first tools/list answered, ${what} (process start →)`,
    (r) => r.total,
  );
  table('the same, CPU time (user + system, all threads)', (r) => r.cpu);
  table('  of which: construct and register (after the imports)', (r) => r.register);
  table('  of which: connect (initialize, or the discover probe)', (r) => r.connect);
  table('  of which: the first tools/list', (r) => r.list);
  table('  of which: node start-up and imports', (r) => r.imported);
  table('whole child process, spawn to exit (includes closing)', (r) => r.wall);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
