/**
 * The shell in a container, through `docker exec` or `podman exec`. No container can be
 * started on the machines this project's CI runs on (there is a docker client, but no
 * engine, and podman stops on setrlimit), so the shell is driven through a stand-in
 * runtime (fixtures/fake-container-runtime.sh) that runs `exec`'s command here with the
 * environment the options give: what is checked is the exec commands we build and the
 * shell working through them (the signaller a process of its own, interrupts, close).
 * Where a real runtime answers, a last test runs the shell in a real container.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shell, ShellModule, shellTools } from 'agenttool/shell';
import { WorkspaceModule } from 'agenttool/workspace';
import { confinedBy, createContext, toolFromInstance } from 'agenttool';
import { noneWithArgument, withArgument } from '../support/processes';
import { signallerScript } from '../../src/shell/signaller';

const FAKE_RUNTIME = join(__dirname, 'fixtures/fake-container-runtime.sh');

let dir: string;
let log: string;
let runtime: string;
const shells: Shell[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'container-shell-')));
  log = join(dir, 'runtime.log');
  // The runtime gets only the environment it needs to reach its daemon: the log's path
  // travels in a wrapper instead.
  runtime = join(dir, 'runtime');
  writeFileSync(
    runtime,
    `#!/usr/bin/env bash\nFAKE_RUNTIME_LOG=${JSON.stringify(log)} exec ${JSON.stringify(FAKE_RUNTIME)} "$@"\n`,
  );
  chmodSync(runtime, 0o755);
});

afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
  rmSync(dir, { recursive: true, force: true });
});

function inContainer(name = 'agent'): Shell {
  const shell = new Shell({
    sandbox: false,
    container: { name, runtime, workdir: dir },
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GREETING: 'hi there' },
    interruptGraceMs: 200,
  });
  shells.push(shell);
  return shell;
}

describe('a shell in a container', () => {
  it('runs its commands through the runtime, with only the environment it was given', async () => {
    process.env.AGENTTOOL_TEST_HOST_ONLY = 'host';
    try {
      const shell = inContainer();
      expect(shell.confinement).toEqual({ confined: true, by: 'container:agent' });
      const result = await shell.run('pwd; echo "$GREETING [${AGENTTOOL_TEST_HOST_ONLY-unset}]"');
      expect(result.output).toBe(`${dir}\nhi there [unset]\n`);
      await shell.run('cd /; export KEPT=1');
      expect((await shell.run('echo "$PWD $KEPT"')).output).toBe('/ 1\n');
      // Two execs into the container: the shell, and its signaller (which nothing waits
      // for: on a loaded machine its exec may come after the shell's first commands).
      const execs = () => readFileSync(log, 'utf8').trim().split('\n').sort();
      for (let i = 0; i < 500 && execs().length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(execs()).toEqual(['agent bash', 'agent bash']);
    } finally {
      delete process.env.AGENTTOOL_TEST_HOST_ONLY;
    }
  });

  it('interrupts a command through the signaller in the container, and keeps the shell', async () => {
    const shell = inContainer();
    const controller = new AbortController();
    const running = shell.run('echo started; sleep 30; echo never', {
      signal: controller.signal,
      onOutput: (text) => {
        if (text.includes('started')) controller.abort();
      },
    });
    expect(await running).toMatchObject({ output: 'started\n', exitCode: 130, interrupted: true });
    expect((await shell.run('echo still')).output).toBe('still\n');
  });

  it('ends everything it started when closed', async () => {
    const shell = inContainer();
    const word = `300.${process.pid}${Date.now() % 100000}`;
    await shell.run(`sleep ${word} >/dev/null 2>&1 &`);
    expect(await withArgument(word)).toHaveLength(1);
    await shell.close();
    expect(await noneWithArgument(word)).toBe(true);
  });

  // In a container the shell leads no session of its own: when the signaller's input
  // ends, it kills the shell's process tree (not reachable through a runtime here, so
  // driven directly: the script the signaller process runs, its shell one of ours).
  it("kills the shell's tree when its input ends, the shell leading no session", async () => {
    const word = `301.${process.pid}${Date.now() % 100000}`;
    const tree = spawn('bash', ['-c', `sleep ${word} & setsid sleep ${word} & wait`], {
      stdio: 'ignore',
    });
    const ended = new Promise((resolve) => tree.on('exit', (_code, signal) => resolve(signal)));
    expect(await withArgument(word, 2)).toHaveLength(2);
    const signaller = spawn('bash', ['-c', signallerScript()], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    signaller.stdin.end(`SHELL ${tree.pid ?? 0}\n`);
    await new Promise((resolve) => signaller.on('close', resolve));
    expect(await ended).toBe('SIGKILL');
    expect(await noneWithArgument(word)).toBe(true);
  });

  it('answers Confined as container:<name> through the tools made for it', () => {
    const placement = { sandbox: false, container: { name: 'builder' } } as const;
    const { BashTool } = shellTools(placement);
    const bash = toolFromInstance(new BashTool(inContainer('builder')));
    expect(confinedBy(bash, '{"command":"ls"}', createContext())).toEqual({
      confined: true,
      by: 'container:builder',
    });
  });

  it('takes a container without a sandbox in ShellModule.forRootAsync and WorkspaceModule.forRoot', () => {
    expect(() =>
      ShellModule.forRootAsync({
        placement: { container: { name: 'builder' } },
        useFactory: () => ({}),
      }),
    ).not.toThrow();
    expect(() =>
      WorkspaceModule.forRoot({ root: tmpdir(), shell: { container: { name: 'builder' } } }),
    ).not.toThrow();
    expect(() =>
      ShellModule.forRootAsync({
        placement: { container: { name: 'builder' }, sandbox: {} },
        useFactory: () => ({}),
      }),
    ).toThrow(/in a container or in an OS sandbox, not both/);
  });

  it('refuses options that cannot name a container or a runtime', () => {
    expect(() => new Shell({ sandbox: false, container: { name: '-rm' } })).toThrow(
      /container.name must be a container name or id/,
    );
    expect(() => new Shell({ container: { name: 'a' }, sandbox: {} })).toThrow(
      /in a container or in an OS sandbox, not both/,
    );
    expect(
      () => new Shell({ sandbox: false, container: { name: 'a', workdir: '--privileged' } }),
    ).toThrow(/container.workdir must be/);
  });
});

/** The first container runtime whose daemon answers here, if any. */
function answeringRuntime(): string | undefined {
  for (const runtime of ['docker', 'podman']) {
    const info = spawnSync(runtime, ['info'], { stdio: 'ignore', timeout: 10_000 });
    if (info.status === 0) return runtime;
  }
  return undefined;
}

const realRuntime = answeringRuntime();
const inRealContainer = realRuntime === undefined ? describe.skip : describe;

inRealContainer(
  realRuntime === undefined
    ? 'a real container (skipped: neither docker nor podman can run containers on this machine)'
    : `a real container through ${realRuntime}`,
  () => {
    let name: string;

    beforeAll(() => {
      name = `agenttool-test-${process.pid}`;
      const started = spawnSync(
        realRuntime!,
        ['run', '-d', '--rm', '--name', name, 'debian:stable-slim', 'sleep', '600'],
        { encoding: 'utf8', timeout: 120_000 },
      );
      if (started.status !== 0) throw new Error(`could not start a container: ${started.stderr}`);
    }, 150_000);

    afterAll(() => {
      spawnSync(realRuntime!, ['rm', '-f', name], { stdio: 'ignore', timeout: 60_000 });
    });

    it('runs the persistent shell in it, and interrupts its commands', async () => {
      const shell = new Shell({ sandbox: false, container: { name, runtime: realRuntime! } });
      shells.push(shell);
      await shell.run('cd /tmp; export X=1');
      expect((await shell.run('echo "$PWD $X"')).output).toBe('/tmp 1\n');
      const result = await shell.run('sleep 30', { timeoutMs: 200 });
      expect(result).toMatchObject({ interrupted: true, timedOut: true });
    }, 60_000);
  },
);
