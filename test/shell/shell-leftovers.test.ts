// What a cancelled or timed-out command started is ended, however it is placed: left in
// its process group ignoring SIGINT after the job itself ended on it, or in a session of
// its own whose parent the first SIGINT killed; while what an earlier command left
// running is not touched. And a shell that stopped itself, which the escalation has to
// replace, is reported with its state lost. In the sandbox (the default) and without it;
// the processes are found from this host by their arguments, which /proc shows in both.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell, type ShellOptions } from 'agenttool/shell';
import { noneWithArgument, processesWithArgument, withArgument } from '../support/processes';
import { runUntil } from '../support/run-until';

const MODES: readonly (readonly [string, ShellOptions])[] = [
  ['sandboxed', {}],
  ['unconfined', { sandbox: false }],
];

let dir: string;
const shells: Shell[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'shell-leftovers-')));
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A duration no other test's sleep has, so that its processes are this test's alone. */
function uniqueSeconds(): string {
  return `4${Math.floor(Math.random() * 10)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}

describe.each(MODES)('%s', (_name, mode) => {
  function newShell(): Shell {
    // A grace a loaded machine still reports the SIGKILL within.
    const shell = new Shell({ cwd: dir, interruptGraceMs: 300, ...mode });
    shells.push(shell);
    return shell;
  }

  it("ends what a cancelled command left in its group after its job ended on the first SIGINT, and not an earlier command's", async () => {
    const shell = newShell();
    const earlier = uniqueSeconds();
    await shell.run(`sleep ${earlier} >/dev/null 2>&1 &`);
    expect(await withArgument(earlier)).toHaveLength(1);
    // A worker that ignores SIGINT, as a worker pool's children do, and SIGTERM too, so
    // that only the last step ends it. The command itself ends at once by its first SIGINT.
    const worker = uniqueSeconds();
    const result = await runUntil(
      shell,
      `sh -c 'trap "" INT TERM; exec sleep ${worker}' & echo ready; sleep 30`,
      'ready',
    );
    expect(result).toMatchObject({ output: 'ready\n', exitCode: 130, interrupted: true });
    expect((await shell.run('echo usable')).output).toBe('usable\n');
    expect(await noneWithArgument(worker)).toBe(true);
    expect(processesWithArgument(earlier)).toHaveLength(1);
  });

  it('ends what a cancelled command started in a session of its own, though the first SIGINT killed its parent', async () => {
    const shell = newShell();
    // The job becomes setsid, which leads the job's group, so it forks a child into a
    // session of its own and waits for it (-w): the group's SIGINT kills setsid, and the
    // job ends, while the child (which ignores SIGINT and SIGTERM) is left under no one.
    const detached = uniqueSeconds();
    const result = await runUntil(
      shell,
      `exec setsid -w sh -c 'trap "" INT TERM; echo ready; exec sleep ${detached}'`,
      'ready',
    );
    expect(result).toMatchObject({ exitCode: 130, interrupted: true });
    expect(await noneWithArgument(detached)).toBe(true);
    expect((await shell.run('echo usable')).output).toBe('usable\n');
  });

  it('says the state is lost when the shell stopped itself and was replaced', async () => {
    const shell = newShell();
    await shell.run('cd / && kept=yes');
    await expect(shell.run('kill -STOP $$', { timeoutMs: 200 })).rejects.toThrow(
      /^the shell stopped answering: the command timed out and was sent SIGINT, SIGTERM and SIGKILL, .*`kill -STOP \$\$`.* so it was replaced; its state \(working directory, variables, functions\) is lost/,
    );
    expect(shell.running).toBe(false);
    expect((await shell.run('echo "${kept-new shell} $PWD"')).output).toBe(`new shell ${dir}\n`);
  });
});
