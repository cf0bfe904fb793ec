// `npm start` as real processes: npm, the shell it runs the script with, and node. A
// SIGINT or SIGTERM sent to npm's process alone (not to its group, as a terminal's
// Ctrl-C would) must stop every one of them.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { ROOT, ensureBuilt, tempDir, killChildren } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);

const started: ChildProcess[] = [];
afterAll(() => {
  // Whatever a failed run left is ours to end: the whole group we started.
  for (const child of started) {
    if (child.pid !== undefined && groupMembers(child.pid).length > 0) {
      process.kill(-child.pid, 'SIGKILL');
    }
  }
  killChildren();
});

/** Live processes (zombies aside) of process group `pgid`, from /proc. */
function groupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) === pgid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls (boundedly) until the group is empty; returns what is left. */
async function emptied(pgid: number): Promise<number[]> {
  for (let i = 0; i < 400; i += 1) {
    if (groupMembers(pgid).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return groupMembers(pgid);
}

/**
 * Starts `npm start` in a process group of its own and waits until it serves. Port 0:
 * the server takes a free port itself and prints its URL (a port picked here and bound
 * later could be taken by another test meanwhile).
 */
async function startNpm(): Promise<{ npm: ChildProcess; port: number }> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', WORKSPACE_ROOT: tempDir() },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  started.push(npm);
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    npm.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('Ctrl-C stops the server.')) resolve();
    });
    npm.once('exit', () => reject(new Error(`npm start exited before serving:\n${stderr}`)));
  });
  const port = Number(/http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr)?.[1]);
  if (!(port > 0)) throw new Error(`npm start printed no URL with its port:\n${stderr}`);
  // It answers on its port.
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve();
    });
    socket.once('error', reject);
  });
  return { npm, port };
}

describe('npm start', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops npm, its shell and node on %s sent to the npm process alone',
    async (signal) => {
      const { npm } = await startNpm();
      const pgid = npm.pid!;
      // npm, the script's shell (unless it exec'd) and node: at least npm and node.
      expect(groupMembers(pgid).length).toBeGreaterThanOrEqual(2);
      process.kill(pgid, signal);
      expect(await emptied(pgid)).toEqual([]);
    },
    120_000,
  );

  it('stops every process on a Ctrl-C at its terminal (SIGINT to the whole group)', async () => {
    const { npm } = await startNpm();
    const pgid = npm.pid!;
    process.kill(-pgid, 'SIGINT');
    expect(await emptied(pgid)).toEqual([]);
  }, 120_000);
});
