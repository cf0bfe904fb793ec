// The mcp-call worker with the SDK's client on a zod of its own, apart from the server's:
// as agenttool's server has it (its bundle carries the SDK's server and zod inside), and
// as any server has it once its client runs in another process. In one process, a client
// and a server that share zod share the warm-up of its code, which a fresh process's
// first calls are mostly made of.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const load = createRequire(join(__dirname, '..', '..', 'package.json'));
const zodFiles = (): string[] =>
  Object.keys(load.cache).filter((file) => file.includes('/node_modules/zod/'));

load('@modelcontextprotocol/server');
const servers = zodFiles();
// Forgetting zod's modules makes the next require load them again, for the client alone.
for (const file of servers) delete load.cache[file];
load('@modelcontextprotocol/client');
if (servers.length === 0 || zodFiles().length === 0) {
  throw new Error('the SDK no longer loads zod from node_modules: no second zod was made');
}
createRequire(__filename)('./mcp-call-worker');
