/**
 * A shell's commands have no terminal: what would wait on one (git's editor, its password
 * prompt, a pager) is told not to, so a command ends at once, saying why, rather than at
 * its timeout. A variable the host's allow-list passes wins.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell, shellEnvironment } from 'agenttool/shell';

let dir: string;
const shells: Shell[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'non-interactive-')));
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(join(dir, 'notes.txt'), 'one\n');
  execFileSync('git', ['-C', dir, 'add', 'notes.txt']);
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['sandboxed', {}],
  ['unconfined', { sandbox: false }],
] as const)('a %s shell', (_mode, options) => {
  it('opens no editor for a commit without a message: git stops at once, saying why', async () => {
    // An editor that would wait for input the command never gets, as vi does.
    const shell = new Shell({
      cwd: dir,
      ...options,
      env: { ...shellEnvironment(), EDITOR: 'sleep 30 #', VISUAL: 'sleep 30 #' },
    });
    shells.push(shell);
    const result = await shell.run(
      'git -c user.email=a@b.c -c user.name=model commit 2>&1; echo "exit $?"',
      { timeoutMs: 20_000 },
    );
    expect(result.timedOut).toBe(false);
    expect(result.output).toContain('Aborting commit due to empty commit message');
    expect(result.output).toMatch(/exit 1\n$/);
    const pager = await shell.run('echo "$GIT_EDITOR $GIT_TERMINAL_PROMPT $GIT_PAGER $PAGER"');
    expect(pager.output).toBe('true 0 cat cat\n');
  });
});

it("keeps the host's editor when the allow-list names it", () => {
  const env = shellEnvironment({ PATH: '/bin', GIT_EDITOR: 'code --wait', PAGER: 'less' }, [
    'GIT_EDITOR',
  ]);
  expect(env['GIT_EDITOR']).toBe('code --wait');
  // Not named: the host's pager stays out, the shell's is set.
  expect(env['PAGER']).toBe('cat');
  expect(env['GIT_TERMINAL_PROMPT']).toBe('0');
});
