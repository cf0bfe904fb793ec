/**
 * A command whose state cannot be saved (it lowered its own ulimit, disabled the
 * builtins the save uses, or its job was killed) never costs the state the previous
 * command left: the next command starts with that state, the command keeps its own exit
 * status, and its answer says that its state was not saved. Also what a save must carry
 * that it once dropped: a working directory whose $PWD was unset, and `export -f`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, outputText, type Tool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { connectMcp, serveTools } from 'agenttool/mcp';
import { Shell, type ShellOptions } from 'agenttool/shell';
import { WORKSPACE_ROOT_ENV, WorkspaceModule } from 'agenttool/workspace';

const MODES: readonly (readonly [string, ShellOptions])[] = [
  ['sandboxed', {}],
  ['unconfined', { sandbox: false }],
];

const UNSAVED = "agenttool: the shell's state after this command could not be saved: ";
const CANNOT_WRITE = 'the command ended its shell before the save (exec, set -n, exit with';
const KILLED = 'its job was killed (SIGKILL) before the save';
const FROM_BEFORE = '; the next command starts with the state from before it\n';

let dir: string;
const shells: Shell[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'shell-state-save-')));
  mkdirSync(join(dir, 'kept'));
  mkdirSync(join(dir, 'lost'));
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each(MODES)('%s', (_name, mode) => {
  /** A shell whose state is: in kept/, KEPT=yes, a function f. */
  async function shellWithState(): Promise<Shell> {
    const shell = new Shell({ cwd: dir, ...mode });
    shells.push(shell);
    await shell.run('cd kept && KEPT=yes && f() { echo "f here"; }');
    return shell;
  }

  async function expectStateFromBefore(shell: Shell): Promise<void> {
    const after = await shell.run('echo "$PWD $KEPT ${LOST-unset}"; f');
    expect(after).toMatchObject({ output: `${dir}/kept yes unset\nf here\n`, exitCode: 0 });
  }

  it.each([
    ['ulimit -f 0', 'ulimit -f 0; cd ../lost; LOST=1; echo lowered', 'lowered\n', 0],
    ['ulimit -n 5', 'ulimit -n 5; cd ../lost; LOST=1; echo lowered; exit 5', 'lowered\n', 5],
    ['enable -n builtin', 'set -e; cd ../lost; LOST=1; enable -n builtin unset; false', '', 1],
    ['enable -n enable', 'cd ../lost; LOST=1; enable -n enable printf', '', 0],
    ['a kill of its own job', 'cd ../lost; LOST=1; kill -KILL $BASHPID', '', 137],
  ])(
    'keeps the state from before a command that left its job unable to save (%s), and says so',
    async (_case, command, printed, status) => {
      const shell = await shellWithState();
      const result = await shell.run(command);
      expect(result.exitCode).toBe(status);
      const why = status === 137 ? KILLED : CANNOT_WRITE;
      expect(result.output.startsWith(`${printed}${UNSAVED}${why}`)).toBe(true);
      expect(result.output.endsWith(FROM_BEFORE)).toBe(true);
      await expectStateFromBefore(shell);
      // The next save goes through, into the file the failed one could not finish.
      await shell.run('cd ../lost; LOST=again');
      expect((await shell.run('echo "$PWD $LOST"')).output).toBe(`${dir}/lost again\n`);
      await shell.run('cd ../kept');
      expect((await shell.run('echo "$PWD $LOST"')).output).toBe(`${dir}/kept again\n`);
    },
  );

  it('saves what a command left that disabled the builtins the save uses, shadowed builtin, or set -eu and IFS', async () => {
    const shell = await shellWithState();
    const disabled = await shell.run('cd ../lost; enable -n read printf declare compgen; echo ok');
    expect(disabled).toMatchObject({ output: 'ok\n', exitCode: 0 });
    expect((await shell.run('pwd; printf "%s\\n" printf-back')).output).toBe(
      `${dir}/lost\nprintf-back\n`,
    );
    const shadowed = await shell.run('builtin() { echo shadow; }; cd ../kept; false');
    expect(shadowed).toMatchObject({ output: '', exitCode: 1 });
    expect((await shell.run('pwd; type -t builtin')).output).toBe(`${dir}/kept\nbuiltin\n`);
    const strict = await shell.run('set -eu; IFS=/; cd ../lost; n=1; echo "$unset_one"');
    expect(strict.output).toContain('unset_one: unbound variable');
    expect(strict.output).not.toContain('agenttool:');
    expect(strict.exitCode).not.toBe(0);
    const after = await shell.run('set +eu; echo "$PWD $n [$IFS]"');
    expect(after.output).toBe(`${dir}/lost 1 [/]\n`);
  });

  it("keeps a function named unset out of the answers: the save's own use of unset is not the command's", async () => {
    const shell = await shellWithState();
    const defined = await shell.run('unset() { echo "my unset $*"; builtin unset "$@"; }; echo ok');
    expect(defined).toMatchObject({ output: 'ok\n', exitCode: 0 });
    expect((await shell.run('echo next; x=1; unset x; echo "[${x-gone}]"')).output).toBe(
      'next\nmy unset x\n[gone]\n',
    );
  });

  it('says nothing of a plain exec, which replaces the job and leaves the state as it was', async () => {
    const shell = await shellWithState();
    expect(await shell.run('exec true')).toMatchObject({ output: '', exitCode: 0 });
    await expectStateFromBefore(shell);
  });

  it('keeps the working directory when a command unset PWD or set it elsewhere', async () => {
    const shell = await shellWithState();
    await shell.run('cd ../lost; unset PWD');
    expect((await shell.run('pwd')).output).toBe(`${dir}/lost\n`);
    await shell.run('cd ../kept; PWD=/');
    expect((await shell.run('/bin/pwd')).output).toBe(`${dir}/kept\n`);
  });

  it('keeps functions exported with export -f, exported', async () => {
    const shell = await shellWithState();
    await shell.run('g() { echo "g in a child"; }; export -f g');
    const result = await shell.run('bash -c g; bash -c f 2>/dev/null || echo "f not exported"');
    expect(result.output).toBe('g in a child\nf not exported\n');
    await shell.run('export -fn g');
    expect((await shell.run('bash -c g 2>/dev/null || echo "g not exported"; g')).output).toBe(
      'g not exported\ng in a child\n',
    );
  });
});

describe('the bash tool', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[WORKSPACE_ROOT_ENV];
    process.env[WORKSPACE_ROOT_ENV] = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[WORKSPACE_ROOT_ENV];
    else process.env[WORKSPACE_ROOT_ENV] = saved;
  });

  it('answers a command whose state could not be saved with its own status, says so, and the next call has the state from before', async () => {
    const app = await ToolApp.create(WorkspaceModule);
    const server = serveTools(app);
    const listener = await server.listenHttp();
    const remote = await connectMcp({ transport: { url: listener.url } });
    const bash = async (command: string): Promise<string> => {
      const tool = remote.tools().find((t) => t.name === 'bash') as Tool;
      const call = { id: 'call_1', args: JSON.stringify({ command }) };
      return outputText((await tool.execute(call, createContext({ call }))).output);
    };
    try {
      await bash('cd kept && export KEPT=yes');
      const lowered = await bash('ulimit -f 0; cd ../lost; echo lowered');
      expect(lowered.startsWith(`lowered\n${UNSAVED}${CANNOT_WRITE}`)).toBe(true);
      expect(lowered).toContain(FROM_BEFORE);
      expect(lowered).not.toContain('exit status');
      expect(await bash('echo "$PWD $KEPT"')).toBe(`${dir}/kept yes\n`);
    } finally {
      await remote.close();
      await server.close();
      await app.close();
    }
  });
});
