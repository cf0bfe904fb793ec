// The shell dies with its server: a real server process (the built `agenttool workspace`,
// over stdio) is SIGKILLed while a command runs, and nothing may survive it: not the
// command, not what it left behind, not the sandbox's bridges, sockets or cgroups, and
// no state file. In the sandbox (the default) and without it.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, killChildren, startAgenttool, tempDir } from '../cli/helpers';
import { noneWithArgument, processesWithArgument } from '../support/processes';

/** Polls `probe` until it returns a value (boundedly); undefined if it never did. */
async function poll<T>(probe: () => T | undefined, tries = 300): Promise<T | undefined> {
  for (let i = 0; i < tries; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** What a shell or its sandbox may leave on this host: files, cgroups, bridge processes. */
function leftovers(): string[] {
  const found: string[] = [];
  for (const dir of ['/dev/shm', tmpdir()]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name.startsWith('.agenttool-') || /^claude-(http|socks)-.*\.sock$/.test(name)) {
        found.push(join(dir, name));
      }
    }
  }
  for (const controller of ['pids', 'memory', 'unified']) {
    const mount = join('/sys/fs/cgroup', controller);
    const walk = (dir: string, depth: number): void => {
      if (depth > 4) return;
      let entries: string[];
      try {
        entries = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of entries) {
        if (name.startsWith('agenttool-shell-')) found.push(join(dir, name));
        else if (!name.includes('.')) walk(join(dir, name), depth + 1);
      }
    };
    walk(mount, 0);
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const words = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (words[0]?.endsWith('socat') && words.some((w) => w.includes('claude-http-'))) {
        found.push(`socat ${entry}`);
      }
    } catch {
      // gone
    }
  }
  return found.sort();
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
    const before = leftovers();
    const root = tempDir();
    const server = startAgenttool(['workspace', root, ...flags]);
    await server.waitForStderr(/serving workspace over stdio/);
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
    const during = leftovers().filter((item) => !before.includes(item));
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
      const now = leftovers().filter((item) => !before.includes(item));
      return now.length === 0 ? now : undefined;
    });
    expect(clean ?? leftovers().filter((item) => !before.includes(item))).toEqual([]);
  }, 90_000);
});
