/**
 * `serve --config` killed outright by its host (SIGKILL, as a host that gives up on a
 * server does, or the OOM killer): a stdio server of the configuration that does not
 * exit at the end of its stdin must not outlive it. Its stand-in is a wrapper script that
 * runs one of our apps, then a long sleep: the app exits on EOF, the script runs on.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP,
  CLI,
  ensureBuilt,
  killChildren,
  startAgenttool,
  stdioOpening,
  tempDir,
} from './helpers';

beforeAll(() => ensureBuilt(), 300_000);

const groups: number[] = [];
afterAll(() => {
  // What a failed run left: the wrapper's whole group.
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone
    }
  }
  killChildren();
});

/** Whether any live process (zombies aside) is in process group `group`, from /proc. */
function groupLives(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch {
    return false;
  }
  // A group of zombies answers signal 0 too: look at each member's state.
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z' && Number(pgrp) === group) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

it('stops the group of a stdio server that runs on after its stdin ends', async () => {
  const dir = tempDir();
  const pidFile = join(dir, 'wrapper.pid');
  const config = join(dir, 'servers.json');
  const wrapper = 'echo $$ > "$0"; "$1" "$2" serve "$3"; exec sleep 600';
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        deaf: { command: '/bin/sh', args: ['-c', wrapper, pidFile, process.execPath, CLI, APP] },
      },
    }),
  );
  const composed = startAgenttool(['serve', '--config', config]);
  let stdout = '';
  composed.process.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  composed.stdin.write(stdioOpening());
  const listing = (): { result?: { tools: { name: string }[] } } | undefined =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { id?: unknown; result?: { tools: { name: string }[] } })
      .find((message) => message.id === 2);
  expect(await until(() => listing() !== undefined, 30_000)).toBe(true);
  // The listing answers once the configured server is there: its tool is in it.
  expect(listing()?.result?.tools.map((tool) => tool.name)).toContain('deaf__echo');
  const group = Number(readFileSync(pidFile, 'utf8'));
  groups.push(group);
  expect(groupLives(group)).toBe(true);

  const exited = new Promise((resolve) => composed.process.once('exit', resolve));
  composed.process.kill('SIGKILL');
  // Its exit, not its pipes' close: what it started holds its stderr while it lives.
  await exited;
  // SIGTERM at once, SIGKILL 2 s later: well within 10 s.
  expect(await until(() => !groupLives(group), 10_000)).toBe(true);
}, 60_000);
