// The server of the load check (mcp-load.bench): one tool that writes 1 MiB of output as
// progress in 1 KiB pieces, as the sample shell does for a chatty command, and returns
// 64 KiB. Prints `listening <url>` and serves until SIGTERM. With `retained` (and
// node's --expose-gc) it collects garbage twice a second and, on SIGTERM, prints the
// most memory it retained: live heap plus external memory after a full collection.
import { newTool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';

const PIECE = 'z'.repeat(1023) + '\n';
const RESULT = 'r'.repeat(64 * 1024);

const chatty = newTool({
  name: 'chatty',
  description: 'Writes 1 MiB of progress, returns 64 KiB',
  execute: async (_call, ctx) => {
    for (let i = 0; i < 1024; i++) {
      ctx.progress(PIECE);
      if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
    }
    return { output: RESULT };
  },
});

async function main(): Promise<void> {
  // `unbounded` serves without a progress budget: the figure the budget is measured against.
  const unbounded = process.argv.includes('unbounded');
  const server = serveTools(chatty, unbounded ? { progressBudgetBytes: 1 << 30 } : {});
  // The check's 50 sessions stand in for 50 clients, but all come from 127.0.0.1, which
  // the fair shares would count as one caller (a tenth of each limit): each share is
  // raised to its limit, so that the load is what the check says it is.
  const listener = await server.listenHttp({
    maxSessions: 100,
    maxSessionsPerSubject: 100,
    maxCallsPerSubject: 1000,
    maxConnectionsPerAddress: 4096,
  });
  process.stdout.write(`listening ${listener.url}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;
  let retainedPeak = 0;
  if (process.argv.includes('retained') && gc !== undefined) {
    setInterval(() => {
      gc();
      const { heapUsed, external } = process.memoryUsage();
      retainedPeak = Math.max(retainedPeak, heapUsed + external);
    }, 500).unref();
  }
  process.on('SIGTERM', () => {
    process.stdout.write(`retained ${retainedPeak}\n`, () => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
