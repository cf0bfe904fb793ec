/**
 * The memory of bubblewrap's probe that lets `agenttool workspace` serve before probing
 * (src/cli/sandbox-probe-memory.ts): what it remembers and under which conditions, and
 * that it reads and writes only a file of its own (no link followed, no pipe waited on).
 * What it changes in a start is in test/shell/sandbox.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxProbeConditions } from 'agenttool/shell';
import { probeMemory } from '../../src/cli/sandbox-probe-memory';
import { killChildren, tempDir } from './helpers';

// The temporary folders this file makes, removed when it ends.
afterAll(killChildren);

const PATH = process.env['PATH'] ?? '';

function cacheHome(): { env: NodeJS.ProcessEnv; file: string } {
  const home = tempDir();
  return { env: { XDG_CACHE_HOME: home }, file: join(home, 'agenttool', 'sandbox-probe') };
}

const linux = process.platform === 'linux' ? test : test.skip;

linux('remembers a pass for the same conditions, in a file of the user alone', () => {
  const { env, file } = cacheHome();
  expect(probeMemory(sandboxProbeConditions(PATH), env).passedBefore).toBe(false);
  probeMemory(sandboxProbeConditions(PATH), env).passed();
  expect(probeMemory(sandboxProbeConditions(PATH), env).passedBefore).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
  expect(readFileSync(file, 'utf8')).toMatch(/^bwrap \/\S+\/bwrap /m);
  // Another PATH (another bubblewrap found first) is another condition.
  const bin = tempDir();
  writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  expect(probeMemory(sandboxProbeConditions(`${bin}:${PATH}`), env).passedBefore).toBe(false);
  probeMemory(sandboxProbeConditions(PATH), env).forget();
  expect(existsSync(file)).toBe(false);
  expect(probeMemory(sandboxProbeConditions(PATH), env).passedBefore).toBe(false);
});

linux('a program missing from PATH remembers nothing', () => {
  const { env, file } = cacheHome();
  const memory = probeMemory(sandboxProbeConditions(tempDir()), env);
  memory.passed();
  expect(memory.passedBefore).toBe(false);
  expect(existsSync(file)).toBe(false);
});

linux('reads no link and no pipe, and writes through no link', () => {
  const { env, file } = cacheHome();
  probeMemory(sandboxProbeConditions(PATH), env).passed();
  const text = readFileSync(file, 'utf8');
  mkdirSync(join(file, '..'), { recursive: true });
  // The same text behind a link is not read as the memory.
  const elsewhere = join(tempDir(), 'conditions');
  writeFileSync(elsewhere, text);
  probeMemory(sandboxProbeConditions(PATH), env).forget();
  symlinkSync(elsewhere, file);
  expect(probeMemory(sandboxProbeConditions(PATH), env).passedBefore).toBe(false);
  // A pipe in its place is not waited on.
  probeMemory(sandboxProbeConditions(PATH), env).forget();
  execFileSync('mkfifo', [file]);
  expect(probeMemory(sandboxProbeConditions(PATH), env).passedBefore).toBe(false);
  probeMemory(sandboxProbeConditions(PATH), env).forget();
  // A link planted where the memory's new file is made is not written through.
  const target = join(tempDir(), 'target');
  writeFileSync(target, 'untouched');
  symlinkSync(target, `${file}.${process.pid}.tmp`);
  probeMemory(sandboxProbeConditions(PATH), env).passed();
  expect(readFileSync(target, 'utf8')).toBe('untouched');
  expect(existsSync(file)).toBe(false);
});
