import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Job,
  type JobOutcome,
  type Tool,
  type ToolRecord,
  Executor,
  annotationsOf,
  confinedBy,
  createContext,
  definitionHash,
  definitionOf,
  isCloser,
  replayOf,
  resourceOf,
  toolFromInstance,
} from 'agenttool';
import { Shell, describeRun, runDetails, shellTools } from 'agenttool/shell';

const { BashTool, RestartTool } = shellTools({});

let dir: string;
let shell: Shell;
let bash: Tool;
let restart: Tool;
let ids = 0;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'shell-tools-')));
  shell = new Shell({ cwd: dir });
  bash = toolFromInstance(new BashTool(shell));
  restart = toolFromInstance(new RestartTool(shell));
});

afterEach(async () => {
  await shell.close();
  rmSync(dir, { recursive: true, force: true });
});

function job(tool: Tool, args: unknown = {}): Job {
  return { tool, call: { id: `call_${++ids}`, args: JSON.stringify(args) } };
}

function outputOf(outcome: JobOutcome): unknown {
  if (outcome.error !== undefined) return `Error: ${outcome.error.message}`;
  return outcome.result?.output;
}

describe('bash and restart: what they declare', () => {
  it('share the resource shell:session, so a batch chains their calls in order', () => {
    expect(resourceOf(bash)).toBe('shell:session');
    expect(resourceOf(restart)).toBe('shell:session');
    const jobs = [job(bash, { command: 'a' }), job(restart), job(bash, { command: 'b' })];
    expect(new Executor().chains(jobs)).toEqual([[0, 1, 2]]);
  });

  it('define bash with a required command, an optional integer timeout and a background run', () => {
    expect(definitionOf(bash).parameters).toEqual({
      type: 'object',
      properties: {
        command: { type: 'string', description: expect.any(String) },
        timeout_seconds: { type: 'integer', description: expect.any(String) },
        run_in_background: { type: 'boolean', description: expect.any(String) },
      },
      required: ['command'],
    });
    expect(definitionOf(restart).parameters).toEqual({
      type: 'object',
      properties: {},
      required: [],
    });
  });

  it('say truthfully, per call, where bash runs', async () => {
    const ctx = createContext();
    const args = JSON.stringify({ command: 'ls' });
    expect(confinedBy(bash, args, ctx)).toEqual({ confined: true, by: 'bubblewrap' });

    const open = shellTools({ sandbox: false });
    const unconfinedShell = new Shell({ cwd: dir, sandbox: false });
    try {
      const openBash = toolFromInstance(new open.BashTool(unconfinedShell));
      expect(confinedBy(openBash, args, ctx)).toEqual({ confined: false, by: '' });
      // Tools made for a sandboxed shell never report an unconfined one as confined.
      const mismatched = toolFromInstance(new BashTool(unconfinedShell));
      const [outcome] = await new Executor().results([job(mismatched, { command: 'true' })]);
      expect(outputOf(outcome!)).toMatch(
        /^Error: the bash tool says its calls run confined \(bubblewrap\) but its shell runs them unconfined/,
      );
    } finally {
      await unconfinedShell.close();
    }

    const inContainer = shellTools({ sandbox: false, container: { name: 'agent' } });
    const containerBash = toolFromInstance(
      new inContainer.BashTool(new Shell({ sandbox: false, container: { name: 'agent' } })),
    );
    expect(confinedBy(containerBash, args, ctx)).toEqual({ confined: true, by: 'container:agent' });
  });

  it('offer the escape hatch only when allowed, and say when a call uses it', () => {
    const ctx = createContext();
    expect(definitionOf(bash).parameters?.properties).not.toHaveProperty(
      'dangerously_disable_sandbox',
    );
    const hatch = shellTools({ allowUnsandboxedCommands: true });
    const hatchBash = toolFromInstance(
      new hatch.BashTool(new Shell({ cwd: dir, allowUnsandboxedCommands: true })),
    );
    expect(definitionOf(hatchBash).parameters?.properties).toHaveProperty(
      'dangerously_disable_sandbox',
      { type: 'boolean', description: expect.stringContaining('outside the sandbox') },
    );
    // The hash says whether a server offers it.
    expect(definitionHash(definitionOf(hatchBash))).not.toBe(definitionHash(definitionOf(bash)));
    const call = (extra: object) => JSON.stringify({ command: 'ls', ...extra });
    expect(confinedBy(hatchBash, call({}), ctx)).toEqual({ confined: true, by: 'bubblewrap' });
    expect(confinedBy(hatchBash, call({ dangerously_disable_sandbox: false }), ctx)).toEqual({
      confined: true,
      by: 'bubblewrap',
    });
    expect(confinedBy(hatchBash, call({ dangerously_disable_sandbox: true }), ctx)).toEqual({
      confined: false,
      by: '',
    });
    expect(() => shellTools({ sandbox: false, allowUnsandboxedCommands: true })).toThrow(
      /allowUnsandboxedCommands is for a sandboxed shell/,
    );
  });

  it('leave replay unknown for bash (a command may not be safe to repeat), safe for restart', () => {
    const ctx = createContext();
    expect(replayOf(bash, '{"command":"ls"}', ctx)).toBe('unknown');
    expect(replayOf(restart, '{}', ctx)).toBe('safe');
    expect(annotationsOf(bash)).toMatchObject({ readOnly: false, destructive: true });
  });

  it('own nothing themselves: the shell is closed by whoever made it', () => {
    expect(isCloser(bash)).toBe(false);
    expect(isCloser(restart)).toBe(false);
  });
});

describe('bash and restart through the executor', () => {
  it('chains two bash calls in one batch, the second seeing what the first did', async () => {
    const outcomes = await new Executor().results([
      job(bash, { command: 'mkdir -p work && cd work && greeting=hi' }),
      job(bash, { command: 'echo "$greeting from $PWD"' }),
    ]);
    expect(outcomes.map(outputOf)).toEqual(['(no output)', `hi from ${dir}/work\n`]);
  });

  it('reports a failing command with its exit status, as output rather than an error', async () => {
    const [outcome] = await new Executor().results([
      job(bash, { command: 'echo oops >&2; exit 3' }),
    ]);
    expect(outputOf(outcome!)).toBe('oops\n[exit status 3]');
    expect(outcome!.result?.details).toEqual({
      exitCode: 3,
      interrupted: false,
      timedOut: false,
      truncated: false,
    });
  });

  it('records the process group the moment the command starts, while it still runs', async () => {
    const records: { record: ToolRecord; running: boolean; callId: string }[] = [];
    const executor = new Executor({
      recorder: (record, ctx) => {
        records.push({ record, running: shell.running, callId: ctx.call.id });
      },
    });
    const bashJob = job(bash, { command: 'echo $BASHPID' });
    const [outcome] = await executor.results([bashJob]);
    expect(records).toHaveLength(1);
    const [{ record, running, callId }] = records as [(typeof records)[0]];
    expect(record.ns).toBe('shell:process-group');
    expect(running).toBe(true);
    expect(callId).toBe(bashJob.call.id);
    const pgid = (JSON.parse(record.data) as { pgid: number }).pgid;
    // The id is the sandbox's own (its PID namespace's), and the record says so.
    expect(record.data).toBe(JSON.stringify({ pgid, sandbox: 'bubblewrap' }));
    expect(outputOf(outcome!)).toBe(`${pgid}\n`);
  });

  it('aborting the batch interrupts the command, returns its output, and keeps the shell', async () => {
    await new Executor().results([job(bash, { command: 'kept=yes' })]);
    const controller = new AbortController();
    const executor = new Executor({ recorder: () => controller.abort() });
    const [interrupted] = await executor.results(
      [job(bash, { command: 'echo before; sleep 30; echo after' })],
      { signal: controller.signal },
    );
    // Aborted at the start, the command may not have printed yet; it never got further.
    expect(outputOf(interrupted!)).toMatch(/^(before\n)?\[interrupted\]\n\[exit status 130\]$/);
    const [after] = await new Executor().results([job(bash, { command: 'echo "$kept"' })]);
    expect(outputOf(after!)).toBe('yes\n');
  });

  it('interrupts a command that outlives its timeout and says so', async () => {
    const [outcome] = await new Executor().results([
      job(bash, { command: 'echo waiting; sleep 30', timeout_seconds: 1 }),
    ]);
    expect(outputOf(outcome!)).toBe(
      'waiting\n[timed out after 1 s: interrupted]\n[exit status 130]',
    );
  });

  it("interrupts a command past the shell's default timeout when the call gives none", async () => {
    const quick = new Shell({ cwd: dir, defaultTimeoutMs: 200 });
    try {
      const tool = toolFromInstance(new BashTool(quick));
      const [outcome] = await new Executor().results([job(tool, { command: 'sleep 30' })]);
      expect(outputOf(outcome!)).toMatch(
        /^\[timed out after 0\.2 s: interrupted\]\n\[exit status \d+\]$/,
      );
      const [after] = await new Executor().results([
        job(tool, { command: 'echo usable', timeout_seconds: 60 }),
      ]);
      expect(outputOf(after!)).toBe('usable\n');
    } finally {
      await quick.close();
    }
  });

  it("tells the model, in bash's description, to give a background job a file for its output", () => {
    expect(definitionOf(bash).description).toContain(
      'Start a server or watcher with run_in_background (or as cmd > cmd.log 2>&1 &): the output of a background job that goes nowhere else lands in whichever later command is running, or is lost.',
    );
  });

  it("tells the model, in bash's description, that /proc's process ids are not the Linux sandbox's", async () => {
    const said =
      " Process ids in /proc are not the shell's: pgrep and pkill do not find its processes, and ps fails (fatal library error, lookup self) or lists other numbers. To stop a background job in a later call, save its pid as it starts (cmd & echo $! > cmd.pid) and kill that pid.";
    expect(definitionOf(bash).description.endsWith(said)).toBe(process.platform === 'linux');
    const unconfined = shellTools({ sandbox: false });
    const shell = new Shell({ sandbox: false });
    try {
      const tool = toolFromInstance(new unconfined.BashTool(shell));
      expect(definitionOf(tool).description).not.toContain('Process ids');
    } finally {
      await shell.close();
    }
  });

  it('documents the default timeout in the parameter description', () => {
    const parameters = definitionOf(bash).parameters as {
      properties: { timeout_seconds: { description: string } };
    };
    expect(parameters.properties.timeout_seconds.description).toContain('default 600');
  });

  it('refuses a second command from another batch while one runs', async () => {
    let started!: () => void;
    const startedPromise = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const first = new Executor({ recorder: () => started() }).results(
      [job(bash, { command: 'sleep 30' })],
      { signal: controller.signal },
    );
    await startedPromise;
    const [refused] = await new Executor().results([job(bash, { command: 'echo second' })]);
    expect(outputOf(refused!)).toBe('Error: the previous command is still running');
    controller.abort();
    await first;
  });

  it('interrupts the command and fails when its process group cannot be recorded', async () => {
    const executor = new Executor({
      recorder: () => {
        throw new Error('disk full');
      },
    });
    const [outcome] = await executor.results([job(bash, { command: 'sleep 30; echo done' })]);
    expect(outputOf(outcome!)).toBe(
      'Error: the command was interrupted because its process group could not be recorded: disk full',
    );
    const [next] = await new Executor().results([job(bash, { command: 'echo usable' })]);
    expect(outputOf(next!)).toBe('usable\n');
  });

  it('restart, chained after bash in one batch, starts a fresh shell', async () => {
    const outcomes = await new Executor().results([
      job(bash, { command: 'cd / && lost=1' }),
      job(restart),
      job(bash, { command: 'echo "${lost-gone} $PWD"' }),
    ]);
    expect(outcomes.map(outputOf)).toEqual([
      '(no output)',
      'The shell was restarted.',
      `gone ${dir}\n`,
    ]);
  });

  it('refuses a timeout that is not positive, and a missing command, clearly', async () => {
    const outcomes = await new Executor().results([
      job(bash, { command: 'true', timeout_seconds: 0 }),
      job(bash, {}),
    ]);
    expect(outputOf(outcomes[0]!)).toBe(
      'Error: timeout_seconds must be a positive number of seconds, got 0',
    );
    expect(outputOf(outcomes[1]!)).toMatch(/^Error: invalid arguments: .*command/);
  });

  it('runs a command in the background: answers at once, its output in a file of its own, stopped by its group', async () => {
    const [, started] = await new Executor().results([
      // A shell that refuses to overwrite a file with > (the log file exists once made).
      job(bash, { command: 'set -o noclobber' }),
      job(bash, {
        command: 'cd /; LEFT=1; echo first; while true; do echo tick; sleep 0.05; done',
        run_in_background: true,
      }),
    ]);
    const said = String(outputOf(started!));
    const match =
      /^Started in the background as process group (\d+); its output \(stdout and stderr\) goes to (\S+): read it with tail, and stop it with kill -- -\1\.\n$/.exec(
        said,
      );
    expect(match).not.toBeNull();
    const [, group, log] = match as unknown as [string, string, string];
    // Its output is its file's, never a later command's; what it changed of the shell
    // stays its own.
    const later = await new Executor().results([
      job(bash, { command: `sleep 0.3; echo "$PWD \${LEFT-unset}"; head -n 2 ${log}` }),
    ]);
    expect(outputOf(later[0]!)).toBe(`${dir} unset\nfirst\ntick\n`);
    const stopped = await new Executor().results([
      job(bash, {
        command: `kill -- -${group}; sleep 0.2; a=$(wc -l < ${log}); sleep 0.3; b=$(wc -l < ${log}); [ "$a" = "$b" ] && echo stopped`,
      }),
      job(bash, { command: 'true', run_in_background: true, timeout_seconds: 5 }),
      // Where no file can be made for its output, the start fails, and says so.
      job(bash, { command: 'export TMPDIR=/nonexistent' }),
      job(bash, { command: 'true', run_in_background: true }),
    ]);
    expect(outputOf(stopped[0]!)).toBe('stopped\n');
    expect(outputOf(stopped[3]!)).toMatch(/^mktemp: .*\n\[exit status 1\]$/s);
    expect(outputOf(stopped[1]!)).toBe(
      'Error: timeout_seconds does not apply to a command run in the background: it runs until it ends, is stopped (kill -- -<group>), or the shell restarts',
    );
  });

  it('refuses an argument it does not take, naming it, rather than run otherwise than asked', async () => {
    const outcomes = await new Executor().results([
      // Another agent's bash: a timeout in ms, a folder.
      job(bash, { command: 'touch ran', timeout: 1000, cwd: '/' }),
      job(restart, { force: true }),
      job(bash, { command: 'ls' }),
      // What another agent's bash takes and changes nothing here is taken.
      job(bash, { command: 'echo listed', description: 'Lists the folder' }),
    ]);
    expect(outputOf(outcomes[0]!)).toBe(
      'Error: invalid arguments: bash takes no "timeout", "cwd"; its arguments are command, timeout_seconds, run_in_background',
    );
    expect(outputOf(outcomes[1]!)).toBe(
      'Error: invalid arguments: restart takes no "force"; it takes none',
    );
    // Neither ran: nothing made, the shell not restarted.
    expect(outputOf(outcomes[2]!)).toBe('(no output)');
    expect(outputOf(outcomes[3]!)).toBe('listed\n');
  });
});

describe('describeRun', () => {
  const base = { exitCode: 0, interrupted: false, timedOut: false, truncated: false };

  it('adds a line for every way a run ended other than success', () => {
    expect(describeRun({ ...base, output: '' })).toBe('(no output)');
    expect(describeRun({ ...base, output: 'x' })).toBe('x');
    expect(describeRun({ ...base, output: 'x', exitCode: 1 })).toBe('x\n[exit status 1]');
    expect(describeRun({ ...base, output: '', exitCode: null, interrupted: true })).toBe(
      '[interrupted]\n[no exit status]',
    );
  });
  it('names what the shell disabled after the command, and hands it to the host', () => {
    const disabled = ['a/.git/hooks/pre-commit: a hook, renamed a/.git/hooks/pre-commit.disabled'];
    expect(describeRun({ ...base, output: 'ok\n', exitCode: 1, disabled })).toBe(
      `ok\n[exit status 1]\n[disabled, since git or an agent on the host would run them outside the sandbox: ${disabled[0]}]`,
    );
    expect(runDetails({ ...base, output: 'ok', disabled })).toEqual({ ...base, disabled });
    expect(runDetails({ ...base, output: 'ok' })).toEqual(base);
  });
});
