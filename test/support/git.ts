import { spawnSync } from 'node:child_process';

/**
 * The environment the tests run the real git in: no system or user configuration (a
 * developer's hooks or aliases stay out), and an author for commits.
 */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** Runs git in `cwd`; what it printed, stdout then stderr, whether it failed or not. */
export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV });
  return `${run.stdout}${run.stderr}`;
}

/** Runs git in `cwd`; its stdout, or an error with what it said when it failed. */
export function gitOrThrow(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}
