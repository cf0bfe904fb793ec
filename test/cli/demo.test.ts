import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, killChildren, ROOT, tempDir } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

function runDemo(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['scripts/start-demo.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * Each test runs the whole demo: a CLI, a server process and a sandboxed shell. On a
 * loaded machine that passes Jest's default 30 s, so each has a bound of its own.
 */
const DEMO_BOUND_MS = 120_000;

describe('npm run demo', () => {
  it(
    'runs the batch against the workspace server process, appends its records and prints the timeline',
    async () => {
      const records = join(tempDir(), 'demo-records.jsonl');
      const ran = await runDemo([records]);
      expect(ran.code).toBe(0);
      // The server is a separate process, started by our command.
      expect(ran.stderr).toContain('agenttool: serving WorkspaceModule over stdio');
      expect(ran.stdout).toContain('#3 then #4 share shell:session: one chain, in order');
      // The chain: #4 starts only after #3 is done; the reads and the write start before that.
      const events = [...ran.stdout.matchAll(/^ {2}\+ *\d+ ms {2}(start|done) +(#\d)/gm)].map(
        (m) => `${m[1]} ${m[2]}`,
      );
      expect(events).toHaveLength(10);
      expect(events.indexOf('start #4')).toBeGreaterThan(events.indexOf('done #3'));
      for (const job of ['#1', '#2', '#5']) {
        expect(events.indexOf(`start ${job}`)).toBeLessThan(events.indexOf('done #3'));
      }
      expect(ran.stdout).toContain('#4 bash: still in notes, SEEN=yes');
      expect(ran.stdout).toMatch(
        /#4 bash +(alone|with .*); after #3 bash, its chain on shell:session/,
      );
      expect(ran.stdout).toMatch(/Timeline[^\n]*\n {2}#1 read_file {2}\|/);
      // Each shell command's process group, recorded durably by the server as it started.
      const lines = readFileSync(records, 'utf8')
        .trimEnd()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { ns: string; moment: string; data: { pgid?: unknown } },
        );
      const groups = lines.filter((l) => l.ns === 'shell:process-group');
      expect(groups).toHaveLength(2);
      for (const group of groups) {
        expect(group.moment).toBe('during');
        expect(typeof group.data.pgid).toBe('number');
      }
    },
    DEMO_BOUND_MS,
  );

  it(
    'leaves nothing in the temp folder: its workspace and default records file are removed',
    async () => {
      const temp = tempDir();
      const ran = await runDemo([], { TMPDIR: temp });
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/^ {2}workspace: .*agenttool-demo-/m);
      expect(readdirSync(temp)).toEqual([]);
      expect(ran.stdout).toContain(`Removed the temporary folder ${temp}/agenttool-demo-`);
    },
    DEMO_BOUND_MS,
  );
});
