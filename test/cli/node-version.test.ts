/**
 * The `agenttool` bin on a Node older than the package supports (npm only warns of the
 * `engines` field): one line naming the version needed and the one found, and exit 1,
 * where it failed on an API that Node lacks, with a stack. The older Node is this one
 * with its reported version changed before the bin runs, so that the test needs no
 * second Node; the machine's own older `node` is tried too when there is one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ensureBuilt } from './helpers';

beforeAll(() => ensureBuilt(), 300_000);

function run(node: string, args: readonly string[]): { code: number | null; stderr: string } {
  const ran = spawnSync(node, [...args, CLI, '--version'], { encoding: 'utf8' });
  return { code: ran.status, stderr: ran.stderr };
}

test.each(['20.19.0', '22.12.0'])('names Node %s as too old, and exits 1', (version) => {
  const dir = mkdtempSync(join(tmpdir(), 'node-version-'));
  try {
    const preload = join(dir, 'older.js');
    writeFileSync(
      preload,
      `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });\n`,
    );
    expect(run(process.execPath, ['-r', preload])).toEqual({
      code: 1,
      stderr: `agenttool: needs Node 22.13 or later; this is Node ${version} (${process.execPath})\n`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('runs on this Node, and says so of an older one the machine has', () => {
  expect(run(process.execPath, [])).toMatchObject({ code: 0, stderr: '' });
  const older = '/usr/bin/node';
  if (!existsSync(older)) return;
  const version = spawnSync(older, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout;
  const [major = 0, minor = 0] = version.trim().split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return;
  expect(run(older, []).stderr).toMatch(/^agenttool: needs Node 22\.13 or later; this is Node /);
});
