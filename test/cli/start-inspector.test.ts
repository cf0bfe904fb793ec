import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { ensureBuilt, killChildren, ROOT, tempDir } from './helpers';

const exec = promisify(execFile);
let server: ChildProcess | undefined;

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => {
  if (server?.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  killChildren();
});

/** Starts `npm start` (scripts/start.js) on a free port and resolves with what it printed once it listens. */
function start(workspace: string): Promise<{ stderr: string; closed: Promise<number | null> }> {
  const child = spawn(process.execPath, ['scripts/start.js'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', WORKSPACE_ROOT: workspace },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  server = child;
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('Ctrl-C stops the server.')) resolve({ stderr, closed });
    });
    void closed.then((code) => reject(new Error(`npm start exited ${code}:\n${stderr}`)));
  });
}

describe('npm start', () => {
  it('prints an Inspector command that works from any folder, leaving it as it was', async () => {
    const workspace = tempDir();
    const started = await start(workspace);
    const command = /with the MCP Inspector CLI:\n {2}(.+)\n/.exec(started.stderr)?.[1];
    expect(command).toMatch(
      /^\(cd \S+ && npx mcp-inspector-cli --cli http:\/\/127\.0\.0\.1:\d+\/mcp /,
    );
    // Pasted into a shell in the repository and elsewhere; `pwd` after it shows the
    // subshell left the user's folder alone.
    for (const folder of [ROOT, tmpdir()]) {
      const { stdout } = await exec('sh', ['-c', `${command!}\necho\npwd`], { cwd: folder });
      const lines = stdout.trimEnd().split('\n');
      const where = lines.pop();
      const result = JSON.parse(lines.join('\n')) as { content: unknown };
      expect(result.content).toEqual([{ type: 'text', text: `hello from ${workspace}\n` }]);
      expect(where).toBe(folder);
    }
    server?.kill('SIGINT');
    expect(await started.closed).toBe(0);
  }, 120_000);
});
