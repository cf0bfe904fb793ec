// What a module's code does outside the command's control: printing to stdout, leaving
// errors unhandled, a reader closing stdout early; and the processes a remote target
// starts, which must not outlive the command.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import {
  APP,
  CLI,
  ROOT,
  ensureBuilt,
  killChildren,
  type Ran,
  runAgenttool,
  startAgenttool,
  tempDir,
} from './helpers';
import { gone, liveGroup } from '../support/processes';
import { INITIALIZE } from '../support/initialize';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const INDEX = JSON.stringify(join(ROOT, 'dist/pkg/index.js'));
const DI = JSON.stringify(join(ROOT, 'dist/pkg/di.js'));

/** Writes a module file with one tool whose `execute` body is `body`, after `top`. */
function moduleFile(name: string, top: string, body: string, extra = ''): string {
  const file = join(tempDir(), name);
  writeFileSync(
    file,
    `const { Tool } = require(${INDEX});
const { Module } = require(${DI});
const { appendFileSync } = require('node:fs');
class Probe {
  async execute(args) { ${body} }
  close() { if (process.env.PROBE_JOURNAL) appendFileSync(process.env.PROBE_JOURNAL, 'probe closed\\n'); }
}
Tool({ name: 'probe', description: 'A probe.' })(Probe);
class App {}
Module({ tools: [Probe] })(App);
module.exports = { App };
${extra}
${top}
`,
  );
  return file;
}

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('what a module prints', () => {
  const CONSOLES = `console.dir({ dir: 'at load' }); console.table([{ t: 1 }]); console.count('n');
console.time('t'); console.timeEnd('t'); console.group('g'); console.groupEnd(); console.trace('trace');
process.stdout.write('written at load\\n');`;

  it('never reaches stdout under list --json, which stays JSON', async () => {
    const file = moduleFile('consoles.js', CONSOLES, "return 'x';");
    const ran = await runAgenttool(['list', '--json', file]);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toHaveLength(1);
    expect(ran.stderr).toContain("{ dir: 'at load' }");
    expect(ran.stderr).toContain('written at load');
    expect(ran.stderr).toContain('n: 1');
  });

  it('never reaches stdout under call, at load or in the tool', async () => {
    const file = moduleFile(
      'consoles.js',
      CONSOLES,
      "console.dir({ dir: 'in the tool' }); process.stdout.write('written in the tool\\n'); return 'the result';",
    );
    const ran = await runAgenttool(['call', file, 'probe']);
    expect(ran).toMatchObject({ code: 0, stdout: 'the result\n' });
    expect(ran.stderr).toContain("{ dir: 'in the tool' }");
    expect(ran.stderr).toContain('written in the tool');
  });

  it('never reaches stdout under serve --stdio: every line there is the protocol', async () => {
    const file = moduleFile(
      'consoles.js',
      CONSOLES,
      "console.dir({ dir: 'in the tool' }); process.stdout.write('written in the tool\\n'); return 'the result';",
    );
    const server = startAgenttool(['serve', file]);
    await server.waitForStderr(/serving/);
    const lines: string[] = [];
    let buffered = '';
    const answered = new Promise<void>((resolve) => {
      server.process.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        lines.push(...parts);
        if (parts.some((line) => line.includes('"id":2'))) resolve();
      });
    });
    const send = (message: object): void => void server.stdin.write(`${JSON.stringify(message)}\n`);
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'probe', arguments: {} } });
    await answered;
    server.stdin.end();
    const ran = await server.done;
    expect(ran.code).toBe(0);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(ran.stdout).toContain('the result');
    expect(ran.stderr).toContain('written at load');
    expect(ran.stderr).toContain('written in the tool');
    expect(ran.stderr).toContain("{ dir: 'in the tool' }");
  });
});

describe('errors a module leaves unhandled', () => {
  it('a promise its top level leaves rejected: exit 70 with the error, not lost', async () => {
    const file = moduleFile(
      'rejects.js',
      "Promise.reject(new Error('boom at load'));",
      "return 'x';",
    );
    const ran = await runAgenttool(['call', file, 'probe']);
    expect(ran.code).toBe(70);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(
      /^agenttool: the module's code left an error unhandled \(unhandled rejection\): Error: boom at load\n\s+at /,
    );
    expect(ran.stderr).not.toContain('Node.js v');
  });

  it('a rejection a tool leaves unhandled: exit 70, the app closed first', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const file = moduleFile(
      'leak.js',
      '',
      "Promise.reject(new Error('stray rejection')); await new Promise((r) => setTimeout(r, 600000));",
    );
    const ran = await runAgenttool(['call', file, 'probe'], { env: { PROBE_JOURNAL: journal } });
    expect(ran.code).toBe(70);
    expect(ran.stderr).toContain(
      "agenttool: the module's code left an error unhandled (unhandled rejection): Error: stray rejection",
    );
    expect(readFileSync(journal, 'utf8')).toBe('probe closed\n');
  });

  it('an exception thrown in a timer: exit 70, the app closed first', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const file = moduleFile(
      'throws.js',
      '',
      "setTimeout(() => { throw new Error('thrown in a timer'); }, 0); await new Promise((r) => setTimeout(r, 600000));",
    );
    const ran = await runAgenttool(['call', file, 'probe'], { env: { PROBE_JOURNAL: journal } });
    expect(ran.code).toBe(70);
    expect(ran.stderr).toContain(
      "agenttool: the module's code left an error unhandled (uncaught exception): Error: thrown in a timer",
    );
    expect(readFileSync(journal, 'utf8')).toBe('probe closed\n');
  });
});

describe('module files that cannot be used', () => {
  it('an export whose getter throws: bad arguments, saying so', async () => {
    const file = moduleFile(
      'getter.js',
      "Object.defineProperty(module.exports, 'lazy', { enumerable: true, get() { throw new Error('lazy getter'); } });",
      "return 'x';",
    );
    const ran = await runAgenttool(['list', 'getter.js'], { cwd: dirname(file) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe('agenttool: reading the exports of getter.js failed: lazy getter\n');
  });

  it('a directory: bad arguments, saying it is a directory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dist'));
    const ran = await runAgenttool(['list', 'dist'], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'agenttool: module file dist is a directory; give the path of a compiled .js file that exports a @Module class\n',
    );
  });

  it('a directory to dev: bad arguments, saying it is a directory, as serve says', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'src'));
    const give = 'give the .ts or .js file that exports your root @Module';
    for (const [path, shown] of [
      ['src', 'src'],
      ['.', dir],
    ]) {
      const ran = await runAgenttool(['dev', path as string], { cwd: dir });
      expect(ran).toMatchObject({
        code: 2,
        stderr: `agenttool: dev: module file ${shown} is a directory; ${give}\n`,
      });
      const served = await runAgenttool(['serve', path as string], { cwd: dir });
      expect(served.stderr).toContain(`module file ${shown} is a directory;`);
    }
    const missing = await runAgenttool(['dev', 'src/app.module.ts'], { cwd: dir });
    expect(missing).toMatchObject({
      code: 2,
      stderr: `agenttool: dev: module file src/app.module.ts not found in ${dir} (a relative path starts at the folder agenttool runs in; give an absolute one); ${give}\n`,
    });
  });

  it('a file not there: says where it looked from a folder that is no project, and to build in one', async () => {
    const give = 'give the path of a compiled .js file that exports a @Module class';
    const fromRoot = await runAgenttool(['list', 'dist/greet.js'], { cwd: '/' });
    expect(fromRoot).toMatchObject({
      code: 2,
      stderr: `agenttool: module file dist/greet.js not found in / (a relative path starts at the folder agenttool runs in; give an absolute one); ${give}\n`,
    });
    const project = tempDir();
    writeFileSync(join(project, 'package.json'), '{"name": "greeter"}\n');
    const unbuilt = await runAgenttool(['serve', 'dist/greet.js'], { cwd: project });
    expect(unbuilt).toMatchObject({
      code: 2,
      stderr: `agenttool: module file dist/greet.js not found (not built yet? build the project first, e.g. npm run build); ${give}\n`,
    });
    // An absolute path says all there is to say.
    const absolute = await runAgenttool(['list', join(project, 'dist/greet.js')], { cwd: '/' });
    expect(absolute.stderr).toBe(
      `agenttool: module file ${join(project, 'dist/greet.js')} not found; ${give}\n`,
    );
    // A JSON file is no module: said so, with where a configuration goes.
    const json = await runAgenttool(['list', 'package.json'], { cwd: project });
    expect(json).toMatchObject({
      code: 2,
      stderr:
        'agenttool: package.json is JSON, not a module file; give a compiled .js file that exports a @Module class (a configuration of MCP servers goes after --config)\n',
    });
  });
});

describe('a reader that closes stdout early', () => {
  it.each([
    ['a module', [APP]],
    ['a --stdio server', ['--stdio', `"${process.execPath}" "${CLI}" serve "${APP}"`]],
  ])('ends the output quietly, with the command exit code (%s)', async (_what, target) => {
    const text = 'x'.repeat(60_000);
    const running = startAgenttool(['call', ...target, 'echo', JSON.stringify({ text })]);
    running.process.stdout?.destroy();
    running.stdin.end();
    const ran = await running.done;
    expect(ran.code).toBe(0);
    expect(ran.stderr).not.toContain('EPIPE');
    expect(ran.stderr).not.toContain('agenttool: internal error');
  });
});

describe('stdout that cannot be written', () => {
  /** Runs `agenttool <args>` with its stdout on /dev/full, where every write fails with ENOSPC. */
  async function toFullDisk(args: readonly string[]): Promise<Ran> {
    const full = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: ROOT,
        stdio: ['ignore', full, 'pipe'],
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      return { code, stdout: '', stderr };
    } finally {
      closeSync(full);
    }
  }

  const FULL = 'agenttool: writing to stdout failed: no space left on device (ENOSPC)\n';
  const onLinux = existsSync('/dev/full') ? it : it.skip;

  onLinux.each([
    ['list', [APP]],
    ['list --json', ['--json', APP]],
    ['call', [APP, 'echo', JSON.stringify({ text: 'hello' })]],
  ])(
    'a full disk is one line naming stdout and the system error, exit 74 (%s)',
    async (what, args) => {
      const ran = await toFullDisk([what.split(' ')[0] as string, ...args]);
      expect(ran).toMatchObject({ code: 74, stderr: FULL });
    },
  );

  onLinux('a full disk under call --stdio: the same line, no stack', async () => {
    const server = `"${process.execPath}" "${CLI}" serve "${APP}"`;
    const ran = await toFullDisk(['call', '--stdio', server, 'echo', '{"text":"hi"}']);
    expect(ran.code).toBe(74);
    // The server's own lines (its banner, its stop) come on the same stderr.
    expect(ran.stderr).toContain(FULL);
    expect(ran.stderr).not.toContain('internal error');
    expect(ran.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('a --stdio server process', () => {
  // A server that writes its pid to PID_DIR, never answers or answers with an error,
  // and ignores its stdin closing.
  function serverScript(answer: boolean): { command: string; pids: string } {
    const dir = tempDir();
    const pids = join(dir, 'pids');
    mkdirSync(pids);
    const script = join(dir, 'server.js');
    writeFileSync(
      script,
      `require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(pids)}, String(process.pid)), '');
${
  answer
    ? `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32000, message: 'no thanks' } }) + '\\n');`
    : ''
}
setInterval(() => {}, 1e9);
`,
    );
    return { command: `"${process.execPath}" "${script}"`, pids };
  }

  function pidsIn(dir: string): number[] {
    const pids = readdirSync(dir).map(Number);
    leftovers.push(...pids);
    return pids;
  }

  it('is gone when the command exits after a failed connect', async () => {
    const server = serverScript(true);
    const ran = await runAgenttool(['list', '--protocol', 'legacy', '--stdio', server.command]);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain('no thanks');
    const pids = pidsIn(server.pids);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  it.each([
    ['list', 'legacy'],
    ['list', 'auto'],
    ['call', 'legacy'],
    ['call', 'auto'],
  ])(
    '%s --protocol %s: is gone after Ctrl-C while connecting; exit 130',
    async (command, protocol) => {
      const server = serverScript(false);
      const started = new Promise<void>((resolve) => {
        const watcher = watch(server.pids, () => {
          watcher.close();
          resolve();
        });
      });
      const args =
        command === 'call'
          ? ['call', '--protocol', protocol, '--stdio', server.command, 'probe']
          : ['list', '--protocol', protocol, '--stdio', server.command];
      const running = startAgenttool(args);
      running.stdin.end();
      await started;
      running.process.kill('SIGINT');
      const ran = await running.done;
      expect(ran.code).toBe(130);
      expect(ran.stderr).toContain('agenttool: interrupted');
      const pids = pidsIn(server.pids);
      expect(pids.length).toBeGreaterThanOrEqual(1);
      expect(pids.filter(alive)).toEqual([]);
    },
  );
});

describe('a --stdio server started through a wrapper', () => {
  /**
   * `sh -c '<helper> & <server>; wait'`: the shell, a helper in the background (which a
   * shell starts ignoring SIGINT) and the server in the foreground, each writing its pid
   * to the returned folder. The server is agenttool serve of the test app (`answers`),
   * or one that never answers and ignores its stdin closing.
   */
  function wrapped(answers: boolean): { command: string; pids: string } {
    const dir = tempDir();
    const pids = join(dir, 'pids');
    mkdirSync(pids);
    const note = `require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(pids)}, String(process.pid)), '');`;
    const helper = join(dir, 'helper.js');
    writeFileSync(helper, `${note}\nsetInterval(() => {}, 1e9);\n`);
    const silent = join(dir, 'silent.js');
    writeFileSync(silent, `${note}\nsetInterval(() => {}, 1e9);\n`);
    const node = `"${process.execPath}"`;
    const server = answers ? `${node} "${CLI}" serve "${APP}" 2>/dev/null` : `${node} "${silent}"`;
    const script = `: > "${pids}/$$"; ${node} "${helper}" & ${server}; wait`;
    return { command: `sh -c '${script}'`, pids };
  }

  /** Waits for the pids in `dir` to be `count` (each process writes its own). */
  async function pidsOf(dir: string, count: number): Promise<number[]> {
    for (let i = 0; i < 500; i += 1) {
      const pids = readdirSync(dir).map(Number);
      if (pids.length >= count) {
        leftovers.push(...pids);
        return pids;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(
      `the wrapped server's processes did not all start: ${readdirSync(dir).join(', ')}`,
    );
  }

  /**
   * The server's process group (the shell leads it), checked to be its own, while it
   * runs.
   */
  function groupOf(pids: readonly number[]): number {
    const shell = pids.find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sh');
    const group = shell === undefined ? undefined : liveGroup(shell);
    expect(group).toBe(shell);
    expect(group).not.toBe(liveGroup(process.pid));
    return group as number;
  }

  /**
   * The processes of `group`, and those of `pids`, still running once each has had its
   * bounded time to go (a process dead but not yet reaped counts as gone).
   */
  async function remaining(group: number, pids: readonly number[]): Promise<number[]> {
    const left = new Set<number>();
    for (const pid of pids) if (!(await gone(pid))) left.add(pid);
    for (const entry of readdirSync('/proc')) {
      if (/^\d+$/.test(entry) && liveGroup(Number(entry)) === group) left.add(Number(entry));
    }
    return [...left];
  }

  it.each([
    ['list', 'legacy'],
    ['call', 'auto'],
  ])(
    '%s --protocol %s: after Ctrl-C, no process of its group is left',
    async (command, protocol) => {
      const server = wrapped(false);
      const args =
        command === 'call'
          ? ['call', '--protocol', protocol, '--stdio', server.command, 'probe']
          : ['list', '--protocol', protocol, '--stdio', server.command];
      const running = startAgenttool(args);
      running.stdin.end();
      // The shell, the helper and the server.
      const pids = await pidsOf(server.pids, 3);
      const group = groupOf(pids);
      running.process.kill('SIGINT');
      const ran = await running.done;
      expect(ran.code).toBe(130);
      expect(await remaining(group, pids)).toEqual([]);
    },
  );

  it('after a call that completes, no process of its group is left', async () => {
    const server = wrapped(true);
    const running = startAgenttool([
      'call',
      '--protocol',
      'legacy',
      '--stdio',
      server.command,
      'echo',
      '{"text":"hi"}',
    ]);
    running.stdin.end();
    // The shell and the helper (the server is agenttool's own serve).
    const pids = await pidsOf(server.pids, 2);
    const group = groupOf(pids);
    const ran = await running.done;
    expect(ran).toMatchObject({ code: 0, stdout: 'hi\n' });
    expect(await remaining(group, pids)).toEqual([]);
  });
});

describe('--record to a path that cannot be written', () => {
  const bad = (): string => join(tempDir(), 'no-such-folder', 'records.jsonl');

  it('call refuses it before the tool runs: bad arguments', async () => {
    const path = bad();
    const ran = await runAgenttool(['call', APP, 'echo', '{"text": "x"}', '--record', path]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(
      new RegExp(
        `^agenttool: --record ${escaped(path)}: cannot open: ENOENT: no such file or directory`,
      ),
    );
  });

  it('serve refuses it before serving: bad arguments', async () => {
    const path = bad();
    const ran = await runAgenttool(['serve', APP, '--record', path]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      new RegExp(`^agenttool: --record ${escaped(path)}: cannot open: ENOENT`),
    );
    expect(ran.stderr).not.toContain('serving');
  });
});
