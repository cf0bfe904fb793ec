/**
 * `serve <module> --config`: the servers of the configuration are served beside the
 * module's tools, not behind the root module's guards and interceptors; a module that has
 * them is told so once at start (import McpServersModule in it to put them behind).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP, ensureBuilt, FIXTURES, killChildren, startAgenttool, tempDir } from './helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

beforeAll(() => ensureBuilt(), 300_000);

const GUARDED = join(FIXTURES, 'guarded-app.module.js');

async function startsSaying(module: string): Promise<string> {
  const config = join(tempDir(), 'servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: {} }));
  const server = startAgenttool(['serve', module, '--config', config, '--http', '127.0.0.1:0']);
  await server.waitForStderr(/over Streamable HTTP at \S+\n/);
  server.process.kill('SIGINT');
  return (await server.done).stderr;
}

it("warns that the configuration's servers are not behind the root module's guards", async () => {
  const said = await startsSaying(GUARDED);
  expect(said).toContain(
    "agenttool: warning: the servers of --config are served beside GuardedModule's tools, not behind its guards (1): every caller the endpoint lets in may list and call them; to put them behind the module's, import McpServersModule in it instead (see docs/composition.md)\n",
  );
});

it('says nothing of the kind for a module without guards or interceptors', async () => {
  expect(await startsSaying(APP)).not.toContain('not behind its');
});
