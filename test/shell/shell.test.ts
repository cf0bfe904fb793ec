import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_COMMAND_TIMEOUT_MS, Shell, type ShellOptions } from 'agenttool/shell';
import { descendants, gone, liveGroup } from '../support/processes';
import { runUntil } from '../support/run-until';

// Every behaviour of the shell holds in the OS sandbox (the default) and unconfined
// (`sandbox: false`) alike; the few tests that look at process groups from this host
// run unconfined only, since a sandboxed shell's process ids are its own namespace's
// (test/shell/sandbox.test.ts covers those from outside).
const MODES: readonly (readonly [string, ShellOptions])[] = [
  ['sandboxed', {}],
  ['unconfined', { sandbox: false }],
];

let dir: string;
let mode: ShellOptions = {};
const shells: Shell[] = [];

function newShell(options: ShellOptions = {}): Shell {
  const shell = new Shell({ cwd: dir, ...mode, ...options });
  shells.push(shell);
  return shell;
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'shell-test-')));
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** What a command's answer ends with when its job was killed before it saved the state. */
const KILLED_UNSAVED =
  "agenttool: the shell's state after this command could not be saved: its job was killed (SIGKILL) before the save; the next command starts with the state from before it\n";

/**
 * Gives the shell time to ready the next command's job (forked, state restored), so that
 * what a test does next happens while that job waits. A longer wait only makes it surer.
 */
const jobReady = () => new Promise((resolve) => setTimeout(resolve, 100));

/** The child of `pid` started last (the job a shell readied for its next command). */
function newestChild(pid: number | undefined): number | undefined {
  let newest: { pid: number; start: number } | undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ... starttime is the 22nd field; comm may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const start = Number(fields[19]);
      if (Number(fields[1]) === pid && (newest === undefined || start >= newest.start)) {
        newest = { pid: Number(entry), start };
      }
    } catch {
      // gone
    }
  }
  return newest?.pid;
}

/** The state letter of process `pid` (R, S, T, Z...), or undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** The CPU time `pids` have spent, user and system, in clock ticks. */
function cpuTicks(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Waits until `condition` holds, checking every 10 ms, for at most 10 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!condition()) throw new Error('the condition did not come true within 10 s');
}

describe.each(MODES)('%s', (_name, modeOptions) => {
  const unconfined = modeOptions.sandbox === false;
  beforeAll(() => {
    mode = modeOptions;
  });

  describe('Shell: running commands', () => {
    it('returns output and exit status, with stderr merged in order', async () => {
      const shell = newShell();
      const result = await shell.run('echo out; echo err >&2; echo again; exit 3');
      expect(result).toEqual({
        output: 'out\nerr\nagain\n',
        exitCode: 3,
        interrupted: false,
        timedOut: false,
        truncated: false,
      });
    });

    it('starts in the configured directory with the configured environment', async () => {
      const shell = newShell({ env: { ...process.env, GREETING: 'hello there' } });
      const result = await shell.run('pwd; echo "$GREETING"');
      expect(result.output).toBe(`${dir}\nhello there\n`);
    });

    it('passes quotes, newlines, heredocs and non-ASCII text through untouched', async () => {
      const shell = newShell();
      const command = `printf '%s\\n' "it's" 'a "quote"'\ncat <<'EOF'\n$HOME stays literal — ✓\nEOF`;
      const result = await shell.run(command);
      expect(result.output).toBe(`it's\na "quote"\n$HOME stays literal — ✓\n`);
    });

    it('shows text that looks like its control lines as output', async () => {
      const shell = newShell();
      const result = await shell.run("echo '__AGENTTOOL_0123 E 0'; echo done");
      expect(result.output).toBe('__AGENTTOOL_0123 E 0\ndone\n');
      expect(result.exitCode).toBe(0);
    });

    it('reads nothing from its own control channel: stdin is empty', async () => {
      const shell = newShell();
      const result = await shell.run('cat; echo "read: $?"');
      expect(result.output).toBe('read: 0\n');
    });

    // What a model reads of an error must point into its own command, as `bash -c`'s do.
    it('words errors as bash -c does: bash, and the line of the command', async () => {
      const shell = newShell();
      const result = await shell.run('echo one\nnot_a_command_here\necho (');
      expect(result.output).toBe(
        [
          'one',
          'bash: line 2: not_a_command_here: command not found',
          "bash: eval: line 3: syntax error near unexpected token `newline'",
          "bash: eval: line 3: `echo ('",
          '',
        ].join('\n'),
      );
      const topLevel = await shell.run('return 3; local x=1; echo "[${FUNCNAME[*]-}] $LINENO"');
      expect(topLevel.output).toBe(
        [
          "bash: line 1: return: can only `return' from a function or sourced script",
          'bash: line 1: local: can only be used in a function',
          '[] 1',
          '',
        ].join('\n'),
      );
    });

    it.each([
      ['a UTF-8 locale (the shell starts in C.UTF-8)', 'export LC_ALL=C.UTF-8'],
      ['the C locale', 'export LC_ALL=C'],
      ['the POSIX locale', 'export LC_ALL=POSIX'],
      // Neither by name nor by its count of characters: the command is read up to the NUL.
      ['a locale that is not installed', 'export LC_ALL=xx_XX.ISO-8859-1'],
    ])('takes a long command whole, multibyte text and all, in %s', async (_locale, setLocale) => {
      const shell = newShell();
      if (setLocale !== '') await shell.run(setLocale);
      // Taken in one read of a counted length where the locale allows (bash reads a
      // pipe a byte at a time otherwise): every character must arrive, none of the end
      // line with them.
      const text = `é€\u{1F600}\\ a"b\r\n\t`.repeat(700);
      const command = `printf '%s' '${text}'\nprintf '|%s' "$?"`;
      const result = await shell.run(command);
      expect(result.output).toBe(`${text}|0`);
      expect(result.exitCode).toBe(0);
      expect((await shell.run('echo next')).output).toBe('next\n');
    });

    it('takes a long command whole in a multibyte locale that is not UTF-8, whatever the names say', async () => {
      // EUC-JP reads two bytes of UTF-8 as one character: a count in bytes would take the
      // end line. The locale is built here (localedef), and named by LANG; LC_CTYPE names
      // "posix", which glibc does not know (it knows POSIX), so the shell stays in EUC-JP,
      // and nocasematch would let a pattern take "posix" for POSIX.
      const locales = join(dir, 'locales');
      mkdirSync(locales);
      execFileSync('localedef', ['-f', 'EUC-JP', '-i', 'ja_JP', join(locales, 'ja_JP.eucJP')]);
      const shell = newShell({
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LOCPATH: locales },
      });
      await shell.run('export LANG=ja_JP.eucJP LC_CTYPE=posix; shopt -s nocasematch');
      expect((await shell.run("x=$'\\xc3\\xa9'; echo ${#x}")).output).toBe('1\n');
      const text = `é€ a"b\n`.repeat(300);
      const result = await shell.run(`printf '%s' '${text}'`);
      expect(result.output).toBe(text);
      expect((await shell.run('echo next')).output).toBe('next\n');
    });

    it('refuses a command with a NUL character', async () => {
      const shell = newShell();
      await expect(shell.run('echo a\0b')).rejects.toThrow('without NUL');
      expect((await shell.run('echo ok')).output).toBe('ok\n');
    });

    it('refuses a command with a lone surrogate, which would reach bash as U+FFFD; a whole pair runs', async () => {
      const shell = newShell();
      await expect(shell.run('echo a \ud800 b')).rejects.toThrow(
        'the command holds a lone surrogate (U+D800, at character 7), half of a pair that is not text and that UTF-8 cannot carry; send the character whole',
      );
      expect((await shell.run('echo \ud83d\ude00')).output).toBe('\u{1f600}\n');
    });
  });

  describe('Shell: control lines no command can forge', () => {
    /** Collects into $markers every marker-like string the command can read in its shell. */
    const FIND_MARKERS = `markers=$( { declare -p; declare -f; } 2>/dev/null | grep -oE '__AGENTTOOL_[0-9a-f]{8,}' | sort -u )`;

    it('a command that reads the shell variables cannot end its call early', async () => {
      const shell = newShell();
      const first = await shell.run(
        [
          FIND_MARKERS,
          `for m in $markers; do printf '%s E 0\\n' "$m"; done`,
          'echo "forged $(echo $markers | wc -w)"',
          'sleep 0.2; echo after',
        ].join('\n'),
      );
      expect(first.output).toMatch(/forged \d+\nafter\n$/);
      expect(first.exitCode).toBe(0);
      // The next call gets its own output, nothing of the first's.
      expect((await shell.run('echo second')).output).toBe('second\n');
    });

    if (unconfined) {
      it('a forged start line cannot send the interrupt to a decoy process group', async () => {
        const shell = newShell({ interruptGraceMs: 200 });
        const pgids: number[] = [];
        const result = await runUntil(
          shell,
          [
            'setsid sleep 30 & decoy=$!',
            // The decoy is a group of its own once setsid has run in it, which a loaded
            // machine may do after the lines below: the forged start line waits for it.
            `until [ "$(cut -d' ' -f5 /proc/$decoy/stat)" = "$decoy" ]; do sleep 0.01; done`,
            FIND_MARKERS,
            `for m in $markers; do printf '%s S %d\\n' "$m" "$decoy"; done`,
            'echo "decoy $decoy ready"; sleep 30',
          ].join('\n'),
          'ready',
          { onStart: (pgid: number) => pgids.push(pgid) },
        );
        const decoy = Number(/decoy (\d+)/.exec(result.output)?.[1]);
        try {
          expect(decoy).toBeGreaterThan(1);
          // The command's own group got the interrupt; the decoy never did.
          expect(result).toMatchObject({ exitCode: 130, interrupted: true });
          expect(pgids).toHaveLength(1);
          expect(pgids[0]).not.toBe(decoy);
          expect(liveGroup(decoy)).toBe(decoy);
        } finally {
          if (decoy > 1) process.kill(decoy, 'SIGKILL');
        }
      });
    }

    it('shows lines shaped like its control lines, with fresh random markers, as output', async () => {
      const shell = newShell();
      const fake = (kind: string) =>
        `printf '__AGENTTOOL_%s ${kind}\\n' "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n')"`;
      const result = await shell.run([fake('R'), fake('S 1'), fake('E 0'), 'echo end'].join('\n'));
      expect(result.output).toMatch(
        /^__AGENTTOOL_[0-9a-f]{32} R\n__AGENTTOOL_[0-9a-f]{32} S 1\n__AGENTTOOL_[0-9a-f]{32} E 0\nend\n$/,
      );
      expect(result.exitCode).toBe(0);
    });
  });

  describe('Shell: state persists between commands', () => {
    it('keeps the directory, variables, exports, functions, aliases and options', async () => {
      const shell = newShell();
      await shell.run(
        [
          'mkdir -p sub && cd sub',
          'plain=1; export EXPORTED=2',
          'declare -a list=(a "b c")',
          'declare -A map=([k]=v)',
          'greet() { echo "hi $1"; }',
          "alias say='echo said'",
          'set -o pipefail',
          'shopt -s nullglob',
          'umask 0077',
        ].join('\n'),
      );
      const result = await shell.run(
        [
          'pwd',
          'echo "$plain ${list[1]} ${map[k]}"',
          'bash -c \'echo "child sees ${EXPORTED:-nothing} ${plain:-nothing}"\'',
          'greet you',
          'say it',
          'false | true; echo "pipefail $?"',
          'echo nomatch*',
          'umask',
        ].join('\n'),
      );
      expect(result.output).toBe(
        `${dir}/sub\n1 b c v\nchild sees 2 nothing\nhi you\nsaid it\npipefail 1\n\n0077\n`,
      );
    });

    it('keeps the directory stack of pushd and popd', async () => {
      const shell = newShell();
      await shell.run('mkdir -p a b && pushd a && pushd ../b');
      const result = await shell.run('dirs -l -p; popd >/dev/null; pwd');
      expect(result.output).toBe(`${dir}/b\n${dir}/a\n${dir}\n${dir}/a\n`);
      expect((await shell.run('popd >/dev/null; pwd; dirs -l -p')).output).toBe(`${dir}\n${dir}\n`);
    });

    it('forgets what a command unset or un-exported', async () => {
      const shell = newShell({ env: { ...process.env, FROM_HOST: 'x' } });
      await shell.run('a=1; export b=2; f() { :; }; alias g=true');
      await shell.run('unset a FROM_HOST; export -n b; unset -f f; unalias g');
      const result = await shell.run(
        'echo "[${a-unset}] [${FROM_HOST-unset}]"; bash -c \'echo "[${b-unexported}]"\'; type f g 2>&1 | wc -l',
      );
      expect(result.output).toBe('[unset] [unset]\n[unexported]\n2\n');
    });

    // A state leaves out the starting variables while they are as the shell started
    // (bash-state.ts: every job has them from the shell), and carries them all again
    // once a command changed one; either way each command sees what the last one left.
    it('keeps starting variables through a change, a change back, an un-export and cd -', async () => {
      const shell = newShell({ env: { ...process.env, FROM_HOST: 'x', OTHER: 'o' } });
      await shell.run('mkdir -p sub; export FROM_HOST=changed; n=1');
      expect((await shell.run('echo "$FROM_HOST $n"')).output).toBe('changed 1\n');
      await shell.run('FROM_HOST=x; cd sub');
      expect(
        (await shell.run('echo "$FROM_HOST $n"; bash -c \'echo "$FROM_HOST"\'; cd -')).output,
      ).toBe(`x 1\nx\n${dir}\n`);
      await shell.run('export -n OTHER');
      expect(
        (await shell.run('echo "$OTHER"; bash -c \'echo "${OTHER-unexported}"\'')).output,
      ).toBe('o\nunexported\n');
      await shell.run('export OTHER; cd -');
      expect(
        (await shell.run('bash -c \'echo "$OTHER $FROM_HOST"\'; echo "$PWD $OLDPWD"; cd -')).output,
      ).toBe(`o x\n${dir}/sub ${dir}\n${dir}\n`);
    });

    // A command whose text cannot change the state skips the save (stateless-command.ts);
    // a name the shell gives another meaning, or lastpipe, still saves it.
    it('keeps what a program-like name changed: a function, an alias, a pipeline under lastpipe', async () => {
      const shell = newShell();
      await shell.run('mkdir -p a/b; ls() { cd a; viaFunction=1; }');
      await shell.run('ls');
      // The state names its functions for this check, whatever IFS the user set.
      await shell.run('IFS=,; goto() { cd ..; cd a; viaSecond=1; }');
      await shell.run('goto');
      await shell.run("alias ll='cd b; viaAlias=2'");
      await shell.run('ll');
      await shell.run('shopt -s lastpipe');
      await shell.run('echo 3 | read viaPipe');
      const result = await shell.run('echo "$PWD $viaFunction $viaSecond $viaAlias $viaPipe"');
      expect(result.output).toBe(`${dir}/a/b 1 1 2 3
`);
    });

    it('keeps what an alias after a |, test -v on an array and PS4 under xtrace changed', async () => {
      const shell = newShell();
      await shell.run("alias x='true; viaAlias=1'; a=(1)");
      await shell.run('ls | x');
      await shell.run("test -v 'a[viaTest=2]'");
      expect((await shell.run('echo "$viaAlias $viaTest"')).output).toBe('1 2\n');
      // PS4 counts what xtrace traces: a command that saves nothing otherwise keeps the
      // count as one that saves does.
      const counts: string[] = [];
      for (const command of ['true', 'cd .']) {
        const traced = newShell();
        await traced.run(`n=0; PS4='+\${n:=0}$((n+=1)) '; set -x`);
        await traced.run(command);
        counts.push((await traced.run('set +x; echo "n=$n"')).output.split('\n').at(-2) ?? '');
      }
      expect(counts[0]).toMatch(/^n=\d+$/);
      expect(counts[0]).toBe(counts[1]);
    });

    // Under set -x the trace shows the command's own lines, not the eval the job runs it
    // through first (it read `+ builtin eval '<the command>'`), and the command still
    // starts with the last status, under set -e too.
    it('traces the command alone under set -x, starting with the last status', async () => {
      const shell = newShell();
      await shell.run('set -x');
      expect((await shell.run('echo two; x=$(echo b)')).output).toBe(
        '++ echo two\ntwo\n+++ echo b\n++ x=b\n',
      );
      await shell.run('false');
      expect((await shell.run('echo "status=$?"')).output).toBe('++ echo status=1\nstatus=1\n');
      await shell.run('set -e; false');
      expect((await shell.run('echo "status=$?"')).output).toBe('++ echo status=1\nstatus=1\n');
      // Nothing of the way it was done is left to the command.
      expect((await shell.run('trap -p RETURN; echo "${__agenttool_xp-unset}"')).output).toBe(
        '++ trap -p RETURN\n++ echo unset\nunset\n',
      );
      expect((await shell.run('set +x; echo quiet')).output).toBe('++ set +x\nquiet\n');
      expect((await shell.run('echo still')).output).toBe('still\n');
    });

    it('keeps the state across commands that save none', async () => {
      const shell = newShell();
      await shell.run('mkdir -p sub && cd sub; kept=1; greet() { echo hi; }; set -o pipefail');
      for (const command of ['true', 'ls -a', 'echo plain | cat', '/bin/pwd', 'cd', ': x']) {
        await shell.run(command);
      }
      const result = await shell.run('echo "$PWD $kept $(greet)"; false | true; echo "$?"');
      // `cd` alone is a builtin that changes the directory: it was saved.
      expect(result.output).toBe(`${process.env.HOME ?? ''} 1 hi\n1\n`);
    });

    // A program alone, whose job saves nothing, is run by exec: it is the job itself, as
    // bash -c's last command is, and its status, interrupt and errors are bash -c's.
    it('runs a program alone as the job itself, with bash -c status, errors and interrupt', async () => {
      const shell = newShell();
      // Its pid and process group, as /proc counts them (which, in a sandbox, is another
      // PID namespace than the one $$ counts in).
      writeFileSync(join(dir, 'who'), '#!/bin/sh\nexec cut -d" " -f1,5 /proc/self/stat\n', {
        mode: 0o755,
      });
      writeFileSync(join(dir, 'noshebang'), 'echo "no #! line: $((6 * 7))"\n', { mode: 0o755 });
      writeFileSync(join(dir, 'plain'), 'echo never\n');
      await shell.run('kept=1; cd .');
      const [pid, group] = (await shell.run('./who')).output.trim().split(' ');
      expect(group).toBe(pid);
      // With a list, the job is a shell of its own, and the program one of its children.
      const [listPid, listGroup] = (await shell.run('./who; true')).output.trim().split(' ');
      expect(listGroup).not.toBe(listPid);
      expect(await shell.run("sh -c 'echo out; echo err >&2; exit 3' >/dev/null")).toMatchObject({
        output: 'err\n',
        exitCode: 3,
      });
      expect((await shell.run('./noshebang')).output).toBe('no #! line: 42\n');
      expect(await shell.run('./plain')).toMatchObject({
        output: 'bash: line 1: ./plain: Permission denied\n',
        exitCode: 126,
      });
      expect(await shell.run('./missing arg')).toMatchObject({
        output: 'bash: line 1: ./missing: No such file or directory\n',
        exitCode: 127,
      });
      expect(await shell.run('not_a_command_here arg')).toMatchObject({
        output: 'bash: line 1: not_a_command_here: command not found\n',
        exitCode: 127,
      });
      const shellLevel = (await shell.run('printenv SHLVL')).output;
      expect((await shell.run('true; printenv SHLVL')).output).toBe(shellLevel);
      const slept = await shell.run('sleep 30', { timeoutMs: 50 });
      expect(slept).toMatchObject({ exitCode: 130, interrupted: true, timedOut: true });
      expect((await shell.run('echo "$kept $?"')).output).toBe('1 130\n');
    });

    // What exec would word otherwise (a full path, a second line), or give the program
    // otherwise ($_), is as when the job forks it: in a list.
    it('runs a program alone as it runs one in a list: $_, unrunnable files, a program that stops', async () => {
      // A grace a loaded machine still reports the stopped program's SIGKILL within.
      const shell = newShell({ interruptGraceMs: 300 });
      writeFileSync(join(dir, 'crlf'), '#!/bin/sh\r\necho never\r\n', { mode: 0o755 });
      writeFileSync(join(dir, 'junk'), Buffer.from([0x01, 0x02, 0xff, 0x0a, 0x00, 0x7f]), {
        mode: 0o755,
      });
      writeFileSync(join(dir, 'stopper'), '#!/bin/sh\nkill -STOP $$\necho resumed\n', {
        mode: 0o755,
      });
      writeFileSync(join(dir, 'crash'), '#!/bin/sh\nkill -SEGV $$\n', { mode: 0o755 });
      for (const command of ['printenv _', './crlf', './junk', 'sh -c "echo ok" extra']) {
        const alone = await shell.run(command);
        const inList = await shell.run(`true; ${command}`);
        expect({ command, ...alone }).toEqual({ command, ...inList });
      }
      expect((await shell.run('printenv _')).output).toMatch(/\/printenv\n$/);
      // A crash: its status alone, as bash -c gives it; in a list, the job's bash says it.
      expect(await shell.run('./crash')).toMatchObject({ output: '', exitCode: 139 });
      expect(await shell.run('true; ./crash')).toMatchObject({
        output: expect.stringMatching(/^bash: line 1: +\d+ Segmentation fault.*\.\/crash\n$/),
        exitCode: 139,
      });
      // Alone, the job became the program and had nothing to save; in a list, it was to
      // save the state, and the SIGKILL came first.
      for (const [command, output] of [
        ['./stopper', ''],
        ['true; ./stopper', KILLED_UNSAVED],
      ] as const) {
        const stopped = await shell.run(command, { timeoutMs: 200 });
        expect({ command, ...stopped }).toEqual({
          command,
          output,
          exitCode: 137,
          interrupted: true,
          timedOut: true,
          truncated: false,
        });
      }
      expect((await shell.run('sleep 0.2; echo next')).output).toBe('next\n');
    });

    it('waits for a command that stopped itself without spending the CPU', async () => {
      const shell = newShell({ interruptGraceMs: 300 });
      writeFileSync(join(dir, 'stopper'), '#!/bin/sh\nkill -STOP $$\necho resumed\n', {
        mode: 0o755,
      });
      await shell.run('true');
      // Alone (the job becomes the program) and in a list, stopped either way.
      for (const command of ['./stopper', 'true; ./stopper', 'kill -STOP $BASHPID']) {
        const controller = new AbortController();
        const running = shell.run(command, { signal: controller.signal });
        const processes = () => {
          const root = shell.pid ?? 0;
          return [root, ...descendants(root).map((proc) => proc.pid)];
        };
        await until(() => processes().some((pid) => processState(pid) === 'T'));
        // Bash and what runs in it, while the command stays stopped: asleep, not asking
        // again and again whether it has ended (clock ticks of 10 ms each).
        const before = cpuTicks(processes());
        await new Promise((resolve) => setTimeout(resolve, 500));
        const spent = cpuTicks(processes()) - before;
        controller.abort();
        const saying = spent < 10 ? 'fewer than 10 ticks' : `${spent} ticks`;
        expect({ command, spent: saying }).toEqual({ command, spent: 'fewer than 10 ticks' });
        expect(await running).toMatchObject({ exitCode: 137, interrupted: true });
      }
      expect((await shell.run('echo still here')).output).toBe('still here\n');
    });

    it('gives the next command the previous exit status as $?', async () => {
      const shell = newShell();
      await shell.run('exit 7');
      expect((await shell.run('echo $?')).output).toBe('7\n');
    });

    it('keeps set -e and set -u for later commands, and survives their exits', async () => {
      const shell = newShell();
      await shell.run('set -eu');
      const failed = await shell.run('echo one; false; echo two');
      expect(failed).toMatchObject({ output: 'one\n', exitCode: 1 });
      const unbound = await shell.run('echo "$nope"; echo after');
      expect(unbound.output).toMatch(/nope: unbound variable/);
      expect(unbound.exitCode).not.toBe(0);
      await shell.run('set +eu');
      expect((await shell.run('false; echo "${nope-free}"')).output).toBe('free\n');
    });

    // A command's own EXIT trap runs as its job ends, as bash -c runs it as the script
    // ends; it must not take the place of the save.
    it('keeps the state of a command that set an EXIT trap of its own', async () => {
      const shell = newShell();
      const set = await shell.run("mkdir -p sub; trap 'echo bye >&2' EXIT; cd sub; x=1");
      expect(set.output).toBe('bye\n');
      expect((await shell.run('echo "$PWD $x"')).output).toBe(`${dir}/sub 1\n`);
      const failing = await shell.run("trap 'echo again' EXIT; y=2; false");
      expect(failing).toMatchObject({ output: 'again\n', exitCode: 1 });
      // The command's trap was its own: the next command's job has none of it.
      const next = await shell.run('echo "$y"; trap -p EXIT');
      expect(next.output.startsWith('2\n')).toBe(true);
      expect(next.output).not.toContain('again');
    });

    it('keeps the state a command left before `exit`', async () => {
      const shell = newShell();
      await shell.run('cd /; x=kept; exit 4');
      expect((await shell.run('echo "$PWD $x"')).output).toBe('/ kept\n');
    });

    it('says so and stays put when the saved directory is gone', async () => {
      const shell = newShell();
      await shell.run('mkdir doomed && cd doomed');
      await shell.run('rmdir "$PWD"');
      const result = await shell.run('pwd');
      expect(result.output).toContain(`the working directory ${dir}/doomed is gone`);
      expect(result.output.endsWith(`${dir}\n`)).toBe(true);
    });

    it('says it once, when the command that found the directory gone saves nothing itself', async () => {
      const shell = newShell();
      await shell.run('mkdir doomed && cd doomed');
      await shell.run('rmdir "$PWD"');
      expect((await shell.run('true')).output).toContain(
        `the working directory ${dir}/doomed is gone`,
      );
      expect((await shell.run('/bin/pwd')).output).toBe(`${dir}\n`);
    });

    // The shell readies the next command's job, in the saved directory, before the
    // command comes: what happens to that directory meanwhile is seen when it comes.
    it('says so when the directory goes while the shell waits for the next command', async () => {
      const shell = newShell();
      await shell.run('mkdir waiting && cd waiting');
      await jobReady();
      rmSync(join(dir, 'waiting'), { recursive: true });
      const result = await shell.run('pwd');
      expect(result.output).toBe(
        `agenttool: the working directory ${dir}/waiting is gone; staying in ${dir}\n${dir}\n`,
      );
    });

    it('enters the directory anew when it was replaced while the shell waited', async () => {
      const shell = newShell();
      await shell.run('mkdir swapped && cd swapped');
      await jobReady();
      rmSync(join(dir, 'swapped'), { recursive: true });
      mkdirSync(join(dir, 'swapped'));
      writeFileSync(join(dir, 'swapped', 'new.txt'), '');
      const result = await shell.run('ls; echo "$PWD $OLDPWD"');
      expect(result.output).toBe(`new.txt\n${dir}/swapped ${dir}\n`);
    });
  });

  describe('Shell: process groups', () => {
    if (unconfined) {
      it('runs each command in a process group of its own, reported as it starts', async () => {
        const shell = newShell();
        const pgids: number[] = [];
        const first = await shell.run('cut -d" " -f5 /proc/$BASHPID/stat', {
          onStart: (pgid) => pgids.push(pgid),
        });
        const second = await shell.run('cut -d" " -f5 /proc/$BASHPID/stat', {
          onStart: (pgid) => pgids.push(pgid),
        });
        expect(pgids).toHaveLength(2);
        expect(first.output).toBe(`${pgids[0]}\n`);
        expect(second.output).toBe(`${pgids[1]}\n`);
        expect(pgids[0]).not.toBe(pgids[1]);
        expect(pgids).not.toContain(shell.pid);
      });
    }

    it('signals a job spec (kill %1) as bash -c does: the background job, not the command that started it', async () => {
      const shell = newShell();
      const killed = await shell.run(
        'sleep 30 & p=$!; kill %1; echo after-kill; wait $p; echo "waited $?"; sleep 31 | sleep 32 & q=$!; kill %+; wait $q; echo "last $?"; wait; jobs',
      );
      expect(killed.output).toBe('after-kill\nwaited 143\nlast 143\n');
      expect(killed.exitCode).toBe(0);
      // The state goes on, and job control stays off inside commands, as under bash -c.
      expect((await shell.run('echo "$-"')).output).not.toContain('m');
      expect((await shell.run('set -o | grep -w monitor')).output).toMatch(/^monitor\s+off\n$/);
    });

    it("gives a command's $! no live process of the shell's own (kill $! once killed the signaller, or the sandbox's network bridge)", async () => {
      const shell = newShell();
      const probe = 'kill -0 "$!" 2>/dev/null && echo "alive $!" || echo none';
      expect((await shell.run(probe)).output).toBe('none\n');
      expect((await shell.run(probe)).output).toBe('none\n');
      await shell.restart();
      expect((await shell.run(probe)).output).toBe('none\n');
      // Interrupts still reach commands.
      const controller = new AbortController();
      const running = shell.run('sleep 30; echo finished', { signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      expect(await running).toMatchObject({ interrupted: true, output: '' });
    });

    it('interrupts the command when onStart throws, and rejects with its error', async () => {
      const shell = newShell();
      const run = shell.run('echo started; sleep 30; echo finished', {
        onStart: () => {
          throw new Error('could not write the record');
        },
      });
      await expect(run).rejects.toThrow('could not write the record');
      expect((await shell.run('echo usable')).output).toBe('usable\n');
    });
  });

  describe('Shell: interrupts', () => {
    it('interrupts the foreground command, returns what it printed, and keeps the shell', async () => {
      const shell = newShell();
      await shell.run('cd /; kept=yes');
      const shellPid = shell.pid;
      const result = await runUntil(shell, 'echo before; sleep 30; echo after', 'before\n');
      expect(result).toEqual({
        output: 'before\n',
        exitCode: 130,
        interrupted: true,
        timedOut: false,
        truncated: false,
      });
      expect(shell.pid).toBe(shellPid);
      expect((await shell.run('echo "$PWD $kept"')).output).toBe('/ yes\n');
    });

    it('stops the whole command line and everything in its group, not only one process', async () => {
      // The SIGINT ends it; a long grace keeps the escalation's SIGKILL (for what a
      // command leaves) from landing on the job's own save on a machine stalled for
      // seconds, which the default's 4 s did once under a full test run.
      const shell = newShell({ interruptGraceMs: 10_000 });
      const result = await runUntil(
        shell,
        'for i in 1 2 3; do echo "tick $i"; sleep 30 | cat; done; echo finished',
        'tick 1\n',
      );
      expect(result.output).toBe('tick 1\n');
      expect(result.interrupted).toBe(true);
    });

    it('keeps the state an interrupted command had reached', async () => {
      const shell = newShell();
      await runUntil(shell, 'cd /; reached=1; echo ready; sleep 30', 'ready');
      expect((await shell.run('echo "$PWD $reached"')).output).toBe('/ 1\n');
    });

    it('escalates to SIGTERM and SIGKILL when the command ignores SIGINT', async () => {
      // A grace a loaded machine still reports the SIGKILL within (after it, with no
      // end from bash, the shell is replaced and the run has no exit status).
      const shell = newShell({ interruptGraceMs: 300 });
      const ignoresInt = await runUntil(shell, "trap '' INT; echo ready; sleep 30", 'ready');
      expect(ignoresInt).toMatchObject({ exitCode: 143, interrupted: true });
      const ignoresTerm = await runUntil(shell, "trap '' INT TERM; echo ready; sleep 30", 'ready');
      expect(ignoresTerm).toMatchObject({ exitCode: 137, interrupted: true });
      expect((await shell.run('echo still here')).output).toBe('still here\n');
    });

    // `timeout` and `setsid` move to a process group of their own, which the group's
    // signals miss: each step also signals what the job started in other groups, and
    // the last kills its whole tree.
    it('interrupts what the command started in a process group of its own', async () => {
      // Read from /proc, which the sandbox's ps cannot read (its PID namespaces differ).
      const count = (pattern: string) =>
        `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' <"$f"; echo; done 2>/dev/null | grep -cE '${pattern}'`;
      // SIGINT reaches timeout, which passes it on: the command ends well before the
      // grace, by its INT trap (130), not by the SIGKILL at the grace's end (137).
      const patient = newShell({ interruptGraceMs: 5000 });
      const timed = await patient.run('timeout 30 sleep 41.5151; echo after', { timeoutMs: 200 });
      expect(timed).toMatchObject({ output: '', exitCode: 130, interrupted: true });
      expect((await patient.run(count('^(timeout 30 )?sleep 41[.]5151'))).output).toBe('0\n');
      // A session of its own that ignores SIGINT and SIGTERM: the SIGKILL ends it.
      const shell = newShell({ interruptGraceMs: 300 });
      const deaf = await shell.run(
        'setsid sh -c \'trap "" INT TERM; exec sleep 41.7171\'; echo after',
        { timeoutMs: 200 },
      );
      expect(deaf).toMatchObject({ output: KILLED_UNSAVED, exitCode: 137, interrupted: true });
      expect((await shell.run(count('^sleep 41[.]7171'))).output).toBe('0\n');
    });

    it('kills what a command in a group of its own starts while the interrupt kills it', async () => {
      const count = (pattern: string) =>
        `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' <"$f"; echo; done 2>/dev/null | grep -cE '${pattern}'`;
      // After the SIGKILL, bash has a grace to tell the command's end before it is taken
      // for wedged and replaced (exit code null): killing hundreds of processes on a
      // loaded machine took longer than 300 ms once.
      const shell = newShell({ interruptGraceMs: 1000 });
      // Its own duration, so that no other run's processes are counted.
      const seconds = `41.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
      // A session of its own that ignores SIGINT and SIGTERM and starts a process every
      // few ms: those it starts between the SIGKILL's look at /proc and the kill are in
      // its group, which the SIGKILL takes whole.
      const forking = await shell.run(
        `setsid sh -c 'trap "" INT TERM; i=0; while [ $i -lt 3000 ]; do sleep ${seconds} & i=$((i+1)); sleep 0.002; done'; echo after`,
        { timeoutMs: 300 },
      );
      expect(forking).toMatchObject({
        output: KILLED_UNSAVED,
        exitCode: 137,
        interrupted: true,
      });
      // The job's end does not wait for the other group's processes to die: a process
      // killed but not yet scheduled to exit still shows, for a while on a loaded
      // machine; one that escaped stays (its sleep is 41 s). Counted until none, up to 2 s.
      const pattern = `^sleep ${seconds.replace('.', '[.]')}`;
      const left = await shell.run(
        `for try in $(seq 100); do n=$(${count(pattern)}); [ "$n" = 0 ] && break; sleep 0.02; done; echo "$n"`,
      );
      expect(left.output).toBe('0\n');
    });

    // What the signaller runs when the server is gone: every process of the shell's
    // session killed by the numbers the shell's PID namespace gives it, which in the
    // sandbox are not /proc's (there /proc/$BASHPID is another process).
    it("kills every other process of its session, and only those, when the server's end asks", async () => {
      const shell = newShell();
      const result = await shell.run(
        `setsid -w bash -c "$(declare -f __agenttool_kill_session)"'
        sleep 40.5 & a=$!; (sleep 40.6; :) & b=$!; set -m; sleep 40.7 & c=$!
        exec 2>/dev/null; __agenttool_kill_session
        for p in $a $b $c; do wait $p; echo "$?"; done; echo alive' & outside=$!
        sleep 40.8 & kept=$!
        wait $outside; kill -0 $kept && echo kept; kill $kept`,
        { timeoutMs: 20_000 },
      );
      // Three killed (137), one of them in a group of its own; the caller and a
      // process of another session (the shell's own) live on.
      expect(result).toMatchObject({
        output: '137\n137\n137\nalive\nkept\n',
        exitCode: 0,
        interrupted: false,
      });
    });

    it('interrupts on timeout and says so', async () => {
      const shell = newShell();
      const result = await shell.run('echo waiting; sleep 30', { timeoutMs: 50 });
      expect(result).toMatchObject({ exitCode: 130, interrupted: true, timedOut: true });
      expect(result.output).toBe('waiting\n');
    });

    it('treats a timeout longer than a timer can hold as no timeout', async () => {
      const shell = newShell();
      const result = await shell.run('sleep 0.2; echo done', { timeoutMs: 2147484 * 1000 });
      expect(result).toMatchObject({ exitCode: 0, interrupted: false, timedOut: false });
      expect(result.output).toBe('done\n');
    });

    it('runs nothing when the signal is already aborted', async () => {
      const shell = newShell();
      const result = await shell.run('touch ran', { signal: AbortSignal.abort() });
      expect(result).toEqual({
        output: '',
        exitCode: null,
        interrupted: true,
        timedOut: false,
        truncated: false,
      });
      expect((await shell.run('ls')).output).toBe('');
    });

    it('refuses a second command while one runs, with the contract message', async () => {
      const shell = newShell();
      let started!: () => void;
      const startedPromise = new Promise<void>((resolve) => (started = resolve));
      const controller = new AbortController();
      const first = shell.run('sleep 30', { signal: controller.signal, onStart: () => started() });
      await startedPromise;
      expect(shell.running).toBe(true);
      await expect(shell.run('echo second')).rejects.toThrow(
        'the previous command is still running',
      );
      controller.abort();
      expect((await first).interrupted).toBe(true);
      expect((await shell.run('echo second')).output).toBe('second\n');
    });

    it('runs a command sent right after an interrupt, once the interrupted one ended', async () => {
      const shell = newShell();
      const controller = new AbortController();
      let started!: () => void;
      const startedPromise = new Promise<void>((resolve) => (started = resolve));
      const first = shell.run('sleep 30', { signal: controller.signal, onStart: () => started() });
      await startedPromise;
      controller.abort();
      // Sent at once, while the first is still being interrupted: it waits, then runs.
      const second = shell.run('echo next');
      expect((await first).interrupted).toBe(true);
      expect((await second).output).toBe('next\n');
    });

    it('refuses a second command even before the shell has started', async () => {
      const shell = newShell();
      const first = shell.run('echo first');
      await expect(shell.run('echo second')).rejects.toThrow(
        'the previous command is still running',
      );
      expect((await first).output).toBe('first\n');
    });
  });

  describe('Shell: the default timeout', () => {
    it('interrupts a command that runs past it, and the shell stays usable', async () => {
      const shell = newShell({ defaultTimeoutMs: 100 });
      expect(shell.defaultTimeoutMs).toBe(100);
      await shell.run('kept=1', { timeoutMs: 60_000 });
      const result = await shell.run('sleep 30');
      expect(result).toMatchObject({ interrupted: true, timedOut: true });
      expect(result.exitCode).not.toBe(0);
      expect((await shell.run('echo "$kept"', { timeoutMs: 60_000 })).output).toBe('1\n');
    });

    it('gives way to the timeout a run asks for', async () => {
      const shell = newShell({ defaultTimeoutMs: 100 });
      const result = await shell.run('sleep 0.5; echo done', { timeoutMs: 60_000 });
      expect(result).toMatchObject({ output: 'done\n', exitCode: 0, timedOut: false });
    });

    it('is 10 minutes unless configured, and must be a positive number', () => {
      expect(newShell().defaultTimeoutMs).toBe(DEFAULT_COMMAND_TIMEOUT_MS);
      expect(DEFAULT_COMMAND_TIMEOUT_MS).toBe(600_000);
      expect(() => new Shell({ defaultTimeoutMs: 0 })).toThrow(
        'defaultTimeoutMs must be a positive number of milliseconds, got 0',
      );
    });
  });

  describe('Shell: the environment', () => {
    const SECRET = 'AGENTTOOL_TEST_SECRET_TOKEN';
    afterEach(() => delete process.env[SECRET]);

    it("passes only PATH, HOME, LANG and TERM of the host's environment by default", async () => {
      process.env[SECRET] = 'hunter2';
      const shell = newShell();
      const result = await shell.run(
        `echo "[\${${SECRET}-unset}]"; env | grep -c hunter2; [ "$PATH" = ${JSON.stringify(process.env.PATH ?? '')} ] && echo same-path`,
      );
      expect(result.output).toBe('[unset]\n0\nsame-path\n');
      const names = (await shell.run('env | cut -d= -f1 | sort')).output.trim().split('\n');
      const allowed = new Set(['PATH', 'HOME', 'LANG', 'TERM', 'PWD', 'SHLVL', 'OLDPWD', '_']);
      // Set for a shell with no terminal (test/shell/non-interactive.test.ts).
      for (const name of ['GIT_EDITOR', 'GIT_TERMINAL_PROMPT', 'GIT_PAGER', 'PAGER']) {
        allowed.add(name);
      }
      // The sandbox adds its own: the private temp folder, and the proxy that is the
      // only way out (its settings, for the programs that each read their own).
      const sandbox =
        /^(TMPDIR|SANDBOX_RUNTIME|NO_PROXY|no_proxy|[A-Z_]*_PROXY|[a-z_]*_proxy|CLOUDSDK_PROXY_[A-Z]+|GIT_CONFIG_PARAMETERS|GIT_SSH_COMMAND|JAVA_TOOL_OPTIONS)$/;
      const extra = names.filter((name) => !allowed.has(name));
      if (unconfined) expect(extra).toEqual([]);
      else {
        expect(extra.filter((name) => !sandbox.test(name))).toEqual([]);
        expect(extra).toEqual(expect.arrayContaining(['TMPDIR', 'HTTP_PROXY', 'ALL_PROXY']));
      }
    });
  });

  describe('Shell: its state', () => {
    /** Files of any shell's state where a shell may keep it, on this host. */
    function stateFiles(): string[] {
      return ['/dev/shm', tmpdir()].flatMap((where) => {
        try {
          return readdirSync(where).filter((name) => name.startsWith('.agenttool-'));
        } catch {
          return [];
        }
      });
    }

    it('is in no file anyone can find, while the shell runs or after', async () => {
      const before = stateFiles();
      const shell = newShell();
      await shell.run('export TOKEN=secret; kept=1');
      expect((await shell.run('echo "$TOKEN $kept"')).output).toBe('secret 1\n');
      expect(stateFiles()).toEqual(before);
      const names = (await shell.run('ls -a /dev/shm "${TMPDIR:-/tmp}" 2>/dev/null')).output;
      expect(names).not.toContain('.agenttool-');
      await shell.close();
      expect(stateFiles()).toEqual(before);
    });

    it('is not inherited by the programs a command runs', async () => {
      const shell = newShell();
      await shell.run('kept=1');
      const fds = (await shell.run('ls -l /proc/self/fd/')).output;
      expect(fds).toContain('/dev/null');
      expect(fds).not.toContain('agenttool');
      expect((await shell.run('echo "$kept"')).output).toBe('1\n');
    });
  });

  describe('Shell: bounded output', () => {
    it('keeps the head and the tail within the cap and marks what it left out', async () => {
      const shell = newShell({ maxOutputBytes: 1000 });
      const result = await shell.run('seq 1 100000');
      expect(result.truncated).toBe(true);
      expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
      expect(result.output.endsWith('99999\n100000\n')).toBe(true);
      const total = (await shell.run('seq 1 100000 | wc -c')).output.trim();
      expect(result.output).toContain(
        `[output truncated: ${Number(total) - 1000} of ${total} bytes not shown]`,
      );
      expect(Buffer.byteLength(result.output)).toBeLessThan(1100);
    });

    it('keeps reading a flood of output so the command is never blocked', async () => {
      const shell = newShell({ maxOutputBytes: 64 });
      const result = await shell.run('head -c 20000000 /dev/zero | tr "\\0" x; echo; echo end');
      expect(result.exitCode).toBe(0);
      expect(result.output.endsWith('x\nend\n')).toBe(true);
    });

    it('rejects a cap that cannot hold anything', () => {
      expect(() => new Shell({ maxOutputBytes: 1 })).toThrow('maxOutputBytes');
    });
  });

  describe('Shell: lifecycle', () => {
    it('restart gives a fresh shell and forgets the state', async () => {
      const shell = newShell();
      await shell.run('cd /; forgotten=1');
      const before = shell.pid;
      await shell.restart();
      expect(shell.pid).not.toBe(before);
      expect((await shell.run('echo "$PWD ${forgotten-gone}"')).output).toBe(`${dir} gone\n`);
    });

    if (unconfined) {
      /** A shell with some state, and the job it readied for its next command. */
      const withReadiedJob = async (): Promise<{ shell: Shell; job: number }> => {
        const shell = newShell();
        await shell.run('x=kept');
        await jobReady();
        const job = newestChild(shell.pid);
        if (job === undefined) throw new Error('the shell has no child');
        return { shell, job };
      };

      it('answers that a command did not run when the job readied for it was killed, and goes on', async () => {
        const { shell, job } = await withReadiedJob();
        process.kill(job, 'SIGKILL');
        const lost = await shell.run('echo ran');
        expect(lost.output).toBe(
          'agenttool: the job that was to run this command ended before it started it (exit status 137); the command did not run\n',
        );
        expect(lost.exitCode).toBe(137);
        expect((await shell.run('echo "again $x"')).output).toBe('again kept\n');
      });

      it('finds the next end line when the job was killed while it read a command of one line', async () => {
        const { shell, job } = await withReadiedJob();
        // The job takes a megabyte of command, more than the channel holds at once: held
        // stopped while the channel fills, then let go while this process (which writes
        // the rest) is blocked, it reads what the channel holds and waits for the rest,
        // and is killed there. What it leaves holds no newline, so the shell's next line
        // runs past the NUL.
        process.kill(job, 'SIGSTOP');
        const lost = shell.run(`: ${'a'.repeat(1_000_000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        process.kill(job, 'SIGCONT');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        process.kill(job, 'SIGKILL');
        const result = await lost;
        expect(result.output).toContain('ended before it started it (exit status 137)');
        expect(result.exitCode).toBe(137);
        expect((await shell.run('echo "again $x"')).output).toBe('again kept\n');
      });

      it('restart ends a running command, whose run resolves without an exit status', async () => {
        const shell = newShell();
        let pgid = 0;
        let started!: () => void;
        const startedPromise = new Promise<void>((resolve) => (started = resolve));
        const running = shell.run('sleep 30', {
          onStart: (id) => {
            pgid = id;
            started();
          },
        });
        await startedPromise;
        await shell.restart();
        expect(await running).toMatchObject({ exitCode: null, interrupted: true });
        expect(await gone(pgid)).toBe(true);
        expect((await shell.run('echo fresh')).output).toBe('fresh\n');
      });
    }

    if (unconfined) {
      it('close kills the shell, the running command and what commands left behind', async () => {
        const shell = newShell();
        const background = await shell.run('sleep 30 >/dev/null 2>&1 & echo $!');
        const leftover = Number(background.output.trim());
        let pgid = 0;
        let started!: () => void;
        const startedPromise = new Promise<void>((resolve) => (started = resolve));
        const running = shell.run('sleep 30', {
          onStart: (id) => {
            pgid = id;
            started();
          },
        });
        await startedPromise;
        const bash = shell.pid!;
        expect(liveGroup(leftover)).toBeDefined();
        await shell.close();
        expect(await running).toMatchObject({ exitCode: null, interrupted: true });
        expect(await gone(bash)).toBe(true);
        expect(await gone(pgid)).toBe(true);
        expect(await gone(leftover)).toBe(true);
      });
    }

    it('close is idempotent and later commands are refused', async () => {
      const shell = newShell();
      await shell.run('true');
      const first = shell.close();
      expect(shell.close()).toBe(first);
      await first;
      await expect(shell.run('true')).rejects.toThrow('the shell is closed');
      await expect(shell.restart()).rejects.toThrow('the shell is closed');
    });

    it('closing a shell that never started is harmless', async () => {
      const shell = newShell();
      await shell.close();
      expect(shell.pid).toBeUndefined();
    });

    if (unconfined) {
      it('reports a shell that died under a command, and starts a new one next time', async () => {
        const shell = newShell();
        await shell.run('x=1');
        await expect(shell.run('echo dying; kill -9 $$')).rejects.toThrow(
          /the shell exited while the command was running \(killed by SIGKILL\).*next command starts a new shell/,
        );
        expect(shell.running).toBe(false);
        expect((await shell.run('echo "${x-new shell}"')).output).toBe('new shell\n');
      });

      it("says why a shell died after an interrupted command without quoting the command's wrapper", async () => {
        const shell = newShell();
        expect((await shell.run('sleep 10', { timeoutMs: 300 })).timedOut).toBe(true);
        // bash noticed the interrupted job on its stderr, quoting the wrapper it ran in.
        const died = await shell.run('kill -9 $$').then(
          () => 'no error',
          (error: unknown) => String(error),
        );
        expect(died).toBe(
          'Error: the shell exited while the command was running (killed by SIGKILL); its state is lost, and the next command starts a new shell',
        );
      });
    }

    if (unconfined) {
      it('fails clearly, without hanging, when bash cannot start', async () => {
        const shell = newShell({ command: ['/nonexistent/bash'] });
        await expect(shell.run('true')).rejects.toThrow(/bash could not start: .*ENOENT/);
        await expect(shell.run('true')).rejects.toThrow(/bash could not start/);
      });
    }

    it('gives up waiting for a start within the start timeout, naming what it waited for', async () => {
      const shell = newShell({ command: ['sleep', '30'], startTimeoutMs: 100 });
      await expect(shell.run('true')).rejects.toThrow(
        /^bash did not start within 100 ms: it was still (scanning the writable paths|waiting for the sandbox's set-up|waiting for bash's ready line)/,
      );
      expect(shell.running).toBe(false);
    });

    (unconfined ? it : it.skip)(
      'says what a shell that exits at once left to write, read to the end of its stderr',
      async () => {
        // A process the shell's process started writes the reason after that process has
        // exited (as bubblewrap's reason for failing comes as it exits): it is read before
        // the exit is told. Unconfined: in the sandbox the shell's end ends its processes.
        const shell = newShell({
          command: [
            'bash',
            '--noprofile',
            '--norc',
            '-c',
            '(while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo its last words >&2) & exit 1',
          ],
        });
        const said = await shell.run('true').then(
          () => 'it ran',
          (e: unknown) => (e as Error).message,
        );
        expect(said).toBe('bash could not start: exit status 1: its last words');
      },
    );

    it('says, of a shell that never printed its ready line, what had started and what it said', async () => {
      // A shell command that reads no commands: it starts, and never gets ready.
      const shell = newShell({
        command: ['bash', '--noprofile', '--norc', '-c', 'echo not a shell >&2; exec sleep 30'],
        startTimeoutMs: 3000,
      });
      const error = await shell.run('true').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^bash did not start within 3000 ms: it was still waiting for bash's ready line; ${unconfined ? 'bash' : 'bubblewrap'} \\(pid \\d+\\) had started, but bash had not run its start-up script \\(stderr: not a shell\\); check that `,
        ),
      );
      expect(shell.running).toBe(false);
    });
  });

  describe('Shell: hostile state', () => {
    it('keeps working when commands shadow builtins with functions and aliases', async () => {
      const shell = newShell();
      await shell.run(
        [
          'printf() { echo hijacked; }',
          'declare() { echo hijacked; }',
          'umask() { echo hijacked; }',
          'cd() { echo hijacked; }',
          'mv() { echo hijacked; }',
          "alias declare='echo hijacked'",
          'll() { echo "function ll"; }',
          "alias ll='echo alias ll'",
          'x=1',
        ].join('\n'),
      );
      await shell.run('cd /tmp; builtin cd /; y=2');
      const result = await shell.run('echo "$x $y $PWD"; ll\nunalias ll\nll');
      expect(result.output).toBe('1 2 /\nalias ll\nfunction ll\n');
    });

    it('keeps working when a command changes IFS, noglob and noclobber', async () => {
      const shell = newShell();
      await shell.run("IFS=:; set -f; set -C; a='x y'");
      await shell.run('b=2');
      const result = await shell.run('echo "$a $b"; echo "[$IFS]"; echo $-');
      expect(result.output).toMatch(/^x y 2\n\[:\]\n.*f.*\n$/);
      expect(result.output.split('\n')[2]).toContain('C');
    });

    // The shell readies the next command's job, state restored, while it waits for the
    // command: what a command leaves must not change how the next one is read.
    it('waits for the next command however long, when a command set TMOUT', async () => {
      const shell = newShell();
      await shell.run('TMOUT=1');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await shell.run('echo "ok $TMOUT"')).output).toBe('ok 1\n');
      expect((await shell.run('echo again')).output).toBe('again\n');
    });

    it('reads the next command whole when a command made IFS read-only', async () => {
      const shell = newShell();
      await shell.run("readonly IFS=$' \\t\\n'");
      const result = await shell.run('  printf "[%s]\\n" "a  b"  \n');
      expect(result.output).toBe('[a  b]\n');
      expect((await shell.run('echo "x y" | { read -r a b; echo "$b"; }')).output).toBe('y\n');
    });

    it('does not keep a function named exec or builtin, and gives the next command no way to its channel', async () => {
      const shell = newShell();
      await shell.run('exec() { :; }; kept=1');
      const result = await shell.run(
        'declare -F exec; echo "function: $?"; cat; echo "read: $?"; echo "$kept"',
      );
      expect(result.output).toBe('function: 1\nread: 0\n1\n');
      // A function named builtin spoils that command's own save; the next still runs.
      await shell.run('builtin() { :; }');
      expect(
        (await shell.run('declare -F builtin; echo "function: $?"; cat; echo "read: $?"')).output,
      ).toBe('function: 1\nread: 0\n');
      expect((await shell.run('ls -l /proc/self/fd/')).output).toContain('0 -> /dev/null');
    });
  });

  describe('Shell: closing while starting', () => {
    it('a run waiting for bash to start says the shell is closed', async () => {
      const shell = newShell();
      const refused = expect(shell.run('echo never')).rejects.toThrow('the shell is closed');
      await shell.close();
      await refused;
    });

    it('refuses a timeout that is not a positive number', async () => {
      const shell = newShell();
      await expect(shell.run('true', { timeoutMs: 0 })).rejects.toThrow('timeoutMs must be');
      await expect(shell.run('true', { timeoutMs: Number.NaN })).rejects.toThrow(
        'timeoutMs must be',
      );
    });
  });
});

describe('Shell: the code the server runs', () => {
  const ROOT = join(__dirname, '../..');

  it('stays read-only in the sandbox, even inside a writable folder', async () => {
    const shell = new Shell({ cwd: dir, sandbox: { allowWrite: [ROOT] } });
    shells.push(shell);
    expect(shell.sandboxPolicy?.denyWrite).toEqual(
      expect.arrayContaining([
        join(ROOT, 'dist'),
        join(ROOT, 'node_modules'),
        join(ROOT, 'node_modules/@anthropic-ai/sandbox-runtime'),
      ]),
    );
    const name = `write-test-${process.pid}`;
    const manifest = statSync(join(ROOT, 'package.json')).mtimeMs;
    const result = await shell.run(
      [
        `touch ${join(ROOT, 'node_modules/@anthropic-ai/sandbox-runtime', name)}`,
        `touch ${join(ROOT, 'node_modules', name)}`,
        `touch ${join(ROOT, 'package.json')}`,
        `mkdir -p ${join(ROOT, '.tmp')} && touch ${join(ROOT, '.tmp', name)} && echo other-writes-work`,
      ].join('; '),
    );
    expect(
      result.output.match(/Read-only file system|Permission denied|Operation not permitted/g),
    ).toHaveLength(3);
    expect(existsSync(join(ROOT, 'node_modules', name))).toBe(false);
    expect(existsSync(join(ROOT, 'node_modules/@anthropic-ai/sandbox-runtime', name))).toBe(false);
    expect(statSync(join(ROOT, 'package.json')).mtimeMs).toBe(manifest);
    expect(result.output).toContain('other-writes-work');
    rmSync(join(ROOT, '.tmp', name), { force: true });
  });
});
