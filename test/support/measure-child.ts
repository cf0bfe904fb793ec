/**
 * Runs `script` (its last line printed: one JSON value) in a child process of its own
 * with `--expose-gc`, from the repository's root and in an environment of its own
 * (nothing an earlier test of the worker set reaches it); returns what it printed,
 * parsed. What it wrote on stderr fails the test it runs in.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from '../cli/helpers';

export function measuredInChild<T>(script: string): T {
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as T;
}
