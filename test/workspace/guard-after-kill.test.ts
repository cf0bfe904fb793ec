/**
 * A command plants a git hook and a config entry in a repository it made, and the
 * server ends before its shell's stop could check: killed outright (a host's SIGKILL
 * after its grace, the OOM killer), or hung up on (a terminal closed). Git on the host
 * must not then run what the sandbox wrote: the janitor the server leaves checks from
 * the guard's record once the server is gone, and SIGHUP stops the server as Ctrl-C
 * does. The built `agenttool workspace`, started from `/` over stdio as a host starts it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ensureBuilt } from '../cli/helpers';
import { CLI } from '../support/workspace-cli';

beforeAll(() => ensureBuilt(), 300_000);

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'guard-after-kill-')));
});
// Retried: the janitor's check may still be writing in the folder as the test ends.
afterEach(() => rmSync(root, { recursive: true, force: true, maxRetries: 5 }));

const PLANT = [
  'git init -q r',
  'printf "#!/bin/sh\\necho HOOK-RAN\\n" > r/.git/hooks/pre-commit',
  'chmod +x r/.git/hooks/pre-commit',
  'git -C r config core.pager "echo PAGER-RAN"',
  'touch planted',
  'sleep 60',
].join(' && ');

const hooks = (): string[] =>
  readdirSync(join(root, 'r', '.git', 'hooks')).filter((name) => !name.endsWith('.sample'));

/** The guard records (guard-record.ts) that name this test's workspace. */
const records = (): string[] =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith('agenttool-guard-'))
    .map((name) => join(tmpdir(), name, 'state.json'))
    .filter((file) => {
      try {
        return readFileSync(file, 'utf8').includes(JSON.stringify(root));
      } catch {
        return false;
      }
    });

async function until(done: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test.each(['SIGKILL', 'SIGHUP'] as const)(
  'a hook and a config entry planted by a command still running are disabled once the server dies of %s',
  async (signal) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'workspace', root],
      cwd: '/',
      stderr: 'ignore',
    });
    const client = new Client(
      { name: 'a-host', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(transport);
    try {
      const running = client
        .callTool({ name: 'bash', arguments: { command: PLANT } }, { timeout: 60_000 })
        .catch((error: unknown) => error);
      await until(() => existsSync(join(root, 'planted')), 30_000);
      expect(hooks()).toEqual(['pre-commit']);
      expect(records()).toHaveLength(1);
      const pid = transport.pid;
      expect(pid).not.toBeNull();
      process.kill(pid as number, signal);
      await running;
      // The check renames the hook, then rewrites the config: done once both are.
      const config = (): string => readFileSync(join(root, 'r', '.git', 'config'), 'utf8');
      await until(
        () => hooks().includes('pre-commit.disabled') && !config().includes('pager'),
        20_000,
      );
      expect(hooks()).toEqual(['pre-commit.disabled']);
      expect(config()).not.toContain('pager');
      expect(readFileSync(join(root, 'r', '.git', 'config.disabled'), 'utf8')).toContain(
        'PAGER-RAN',
      );
      // The record goes once it has served.
      await until(() => records().length === 0, 5_000);
      expect(records()).toEqual([]);
    } finally {
      await client.close();
    }
  },
  90_000,
);

test('SIGHUP stops the server as Ctrl-C does: its shell and sessions closed, exit 0', async () => {
  const server = spawn(process.execPath, [CLI, 'workspace', root], {
    cwd: '/',
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let said = '';
  server.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    server.once('exit', (code, signal) => resolve([code, signal])),
  );
  await until(() => said.includes('authorization:') || server.exitCode !== null, 30_000);
  server.kill('SIGHUP');
  expect(await exited).toEqual([0, null]);
  expect(said).toContain('agenttool: stopping: closing sessions and the app\n');
  expect(said).toContain('agenttool: stopped\n');
}, 60_000);
