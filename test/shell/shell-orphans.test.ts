// The shell dies with its server: a real server process (the built `agenttool workspace`,
// over stdio) is SIGKILLed while a command runs, and nothing may survive it: not the
// command, not what it left behind, not the sandbox's bridges, sockets or cgroups, and
// no state file. In the sandbox (the default) and without it.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, killChildren, startAgenttool, tempDir } from '../cli/helpers';
import { descendants, noneWithArgument, processesWithArgument } from '../support/processes';
import { INITIALIZE } from '../support/initialize';

/** Polls `probe` until it returns a value (boundedly); undefined if it never did. */
async function poll<T>(probe: () => T | undefined, tries = 300): Promise<T | undefined> {
  for (let i = 0; i < tries; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/**
 * What the server `pid` and the processes under it hold on this host, which it must not
 * leave behind: its bridge processes and their sockets, its cgroups, its open state
 * files. Found through each process (its command line, its cgroups, its open files), not
 * by scanning the host, so that another test's shell running meanwhile is not counted.
 */
function heldBy(pid: number): string[] {
  const found = new Set<string>();
  for (const proc of [{ pid }, ...descendants(pid)]) {
    let words: string[];
    try {
      words = readFileSync(`/proc/${proc.pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone
    }
    if (words[0]?.endsWith('socat') && words.some((w) => /claude-(http|socks)-/.test(w))) {
      found.add(`socat ${proc.pid}`);
      for (const word of words) {
        for (const socket of word.matchAll(/\/[^\s,:]*claude-(?:http|socks)-[^\s,:]*\.sock/g)) {
          found.add(socket[0]);
        }
      }
    }
    try {
      for (const line of readFileSync(`/proc/${proc.pid}/cgroup`, 'utf8').split('\n')) {
        const [, controllers = '', path = ''] = line.split(':');
        const at = path.indexOf('/agenttool-shell-');
        if (at < 0) continue;
        const group = path.slice(
          0,
          path.indexOf('/', at + 1) < 0 ? undefined : path.indexOf('/', at + 1),
        );
        for (const controller of controllers === '' ? ['unified', ''] : controllers.split(',')) {
          const dir = join('/sys/fs/cgroup', controller, group);
          if (existsSync(dir)) found.add(dir);
        }
      }
    } catch {
      // gone
    }
    try {
      for (const fd of readdirSync(`/proc/${proc.pid}/fd`)) {
        const target = readlinkSync(`/proc/${proc.pid}/fd/${fd}`);
        if (/\/\.agenttool-/.test(target) && !target.endsWith(' (deleted)')) found.add(target);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return [...found].sort();
}

/** Those of `held` (from {@link heldBy}) that are still there: a process alive, a path present. */
function stillThere(held: readonly string[], started: ReadonlyMap<number, number>): string[] {
  return held.filter((item) => {
    const pid = /^socat (\d+)$/.exec(item)?.[1];
    if (pid === undefined) return existsSync(item);
    return startTime(Number(pid)) === started.get(Number(pid));
  });
}

/** When process `pid` started (clock ticks since boot), undefined once it is gone. */
function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : Number(fields[19]);
  } catch {
    return undefined;
  }
}

const marks: string[] = [];

beforeAll(() => ensureBuilt(), 300_000);

afterAll(() => {
  // Whatever survived a failed run is ours to end.
  for (const word of marks) {
    for (const pid of processesWithArgument(word)) process.kill(pid, 'SIGKILL');
  }
  killChildren();
});

describe.each([
  ['in its sandbox', []],
  ['without a sandbox', ['--no-sandbox']],
])('the shell %s when its server is SIGKILLed', (_name, flags) => {
  it('dies with everything it started, and leaves nothing behind', async () => {
    const root = tempDir();
    const server = startAgenttool(['workspace', root, ...flags]);
    await server.waitForStderr(/serving workspace over stdio/);
    const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A process that left its parent (still in the group), and the command itself; this
    // host finds them by a word of their command lines.
    const left = `300.${randomBytes(4).readUInt32BE()}`;
    const running = `300.${randomBytes(4).readUInt32BE()}`;
    marks.push(left, running);
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'bash',
        arguments: { command: `export KEPT=1; (sleep ${left} &); sleep ${running}` },
      },
    });
    const started = await poll(() =>
      processesWithArgument(left).length === 1 && processesWithArgument(running).length === 1
        ? true
        : undefined,
    );
    expect(started).toBe(true);
    const during = heldBy(server.process.pid!);
    const startedAt = new Map<number, number>();
    for (const item of during) {
      const pid = /^socat (\d+)$/.exec(item)?.[1];
      const at = pid === undefined ? undefined : startTime(Number(pid));
      if (at !== undefined) startedAt.set(Number(pid), at);
    }
    if (flags.length === 0) {
      // What the sandbox holds while it runs, which the janitor must take away after.
      expect(during).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/claude-http-.*\.sock$/),
          expect.stringMatching(/^socat \d+$/),
          expect.stringMatching(/agenttool-shell-/),
        ]),
      );
    } else {
      // Unconfined, the state files are unlinked from the start: nothing to see.
      expect(during).toEqual([]);
    }

    server.process.kill('SIGKILL');
    expect((await server.done).code).toBeNull();
    expect(await noneWithArgument(left)).toBe(true);
    expect(await noneWithArgument(running)).toBe(true);
    // The janitor takes a moment: it cleans up once it sees the server gone.
    const clean = await poll(() => {
      const now = stillThere(during, startedAt);
      return now.length === 0 ? now : undefined;
    });
    expect(clean ?? stillThere(during, startedAt)).toEqual([]);
  }, 90_000);
});
