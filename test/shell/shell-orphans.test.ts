// The shell dies with its server: a real server process (the built `agenttool serve` on
// the workspace module, over stdio) is SIGKILLed while a command runs, and nothing of
// the shell's session, nor of the command's process group, may survive it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE, ensureBuilt, killChildren, startAgenttool, tempDir } from '../cli/helpers';

/** Live processes (zombies aside) in session `sid` or process group `pgid`, from /proc. */
function processesOf(sid: number, pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp session ...
    const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z') continue;
    if (Number(session) === sid || Number(pgrp) === pgid) found.push(Number(entry));
  }
  return found;
}

/** Polls `probe` until it returns a value (boundedly); undefined if it never did. */
async function poll<T>(probe: () => T | undefined, tries = 300): Promise<T | undefined> {
  for (let i = 0; i < tries; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

let watched: { sid: number; pgid: number } | undefined;

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => {
  // Whatever survived a failed run is ours to end.
  if (watched !== undefined) {
    for (const pid of processesOf(watched.sid, watched.pgid)) process.kill(pid, 'SIGKILL');
  }
  killChildren();
});

describe('the shell when its server is SIGKILLed', () => {
  it("dies, with the running command's whole process group", async () => {
    // A test of processes (bounded polls inside), given more than the default 30 s.
    const root = tempDir();
    const server = startAgenttool(['serve', WORKSPACE], { env: { WORKSPACE_ROOT: root } });
    await server.waitForStderr(/serving WorkspaceModule over stdio/);
    const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'orphan-test', version: '1.0.0' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // bash's pid (its session) and the job's (its group); then a process that left its
    // parent, still in the group, and the command itself.
    const command = 'echo "$$ $BASHPID" > pids.tmp && mv pids.tmp pids; (sleep 300 &); sleep 300';
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'bash', arguments: { command } },
    });
    const pids = await poll(() => {
      try {
        return readFileSync(join(root, 'pids'), 'utf8').trim().split(' ').map(Number);
      } catch {
        return undefined;
      }
    });
    expect(pids).toEqual([expect.any(Number), expect.any(Number)]);
    const [sid, pgid] = pids as [number, number];
    watched = { sid, pgid };
    // bash, the job's subshell and the two sleeps, at least, are running.
    const running = await poll(() => {
      const members = processesOf(sid, pgid);
      return members.length >= 4 ? members : undefined;
    });
    expect(running).toEqual(expect.arrayContaining([sid, pgid]));

    server.process.kill('SIGKILL');
    expect((await server.done).code).toBeNull();
    const survivors = await poll(() => (processesOf(sid, pgid).length === 0 ? [] : undefined));
    expect(survivors ?? processesOf(sid, pgid)).toEqual([]);
  }, 90_000);
});
