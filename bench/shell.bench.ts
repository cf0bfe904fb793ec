/**
 * The persistent shell against a fresh `bash -c` spawned for each command (what a shell
 * tool without state costs), in the OS sandbox and unconfined:
 * - a command that does nothing (`true`), and one that prints 1 MB;
 * - the shell's start-up, to the first command's answer, and what a sandboxed start
 *   consists of;
 * - over MCP: a served `bash` call against a served `read_file` call, over the same
 *   connection to the same workspace server, for clients with their default settings;
 * - a workspace's first call, as a host makes it: `agenttool workspace` spawned over
 *   stdio, its tools listed, then the first `bash` at once or after a pause (the sandbox
 *   readied meanwhile), against a first `read_file`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createContext, type Tool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import { type ConnectOptions, connectMcp, serveTools } from 'agenttool/mcp';
import { type ShellOptions } from 'agenttool/shell';
import { WorkspaceModule } from 'agenttool/workspace';
// Internal parts, for the start-up's breakdown. The shell is taken from its own module
// too (the code the package bundles): `agenttool/shell` is the bundle, a module of its
// own, and its shells' start times are recorded in the bundle's copy of
// `lastStartTimes`, which the breakdown below could not read.
import { withProtectedPaths } from '../src/shell/protected-paths';
import { sandboxPolicy } from '../src/shell/sandbox-policy';
import { leaseSandbox } from '../src/shell/sandbox-runtime';
import { lastStartTimes, Shell } from '../src/shell/shell';
import { type StartTimes } from '../src/shell/shell-start';
import { type Figure, measure, report } from './measure';

const MEGABYTE = "head -c 1000000 /dev/zero | tr '\\0' a";

/** Runs `bash -c command` in a fresh process and waits for all of its output. */
function freshBash(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', command], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** The process's first sandboxed start, which also sets up the sandbox runtime. */
let coldStart: StartTimes | undefined;

async function perCommand(dir: string): Promise<void> {
  const modes: [string, ShellOptions][] = [
    ['persistent shell, sandboxed', {}],
    ['persistent shell, unconfined', { sandbox: false }],
  ];
  for (const [command, label, ops] of [
    ['true', 'a command that does nothing (true)', 200],
    [MEGABYTE, 'a command that prints 1 MB', 20],
  ] as const) {
    const figures = [
      await measure(
        'fresh bash -c',
        async (n) => {
          for (let i = 0; i < n; i++) await freshBash(command, dir);
        },
        { ops, rounds: 5 },
      ),
    ];
    for (const [name, options] of modes) {
      const shell = new Shell({ cwd: dir, ...options });
      try {
        await shell.run('true');
        if (options.sandbox === undefined) coldStart ??= lastStartTimes(shell);
        figures.push(
          await measure(
            name,
            async (n) => {
              for (let i = 0; i < n; i++) await shell.run(command);
            },
            { ops, rounds: 5 },
          ),
        );
      } finally {
        await shell.close();
      }
    }
    report(`Per command: ${label}`, figures, 'fresh bash -c');
  }
}

/** How long a paced command waits before it starts (not counted). */
const PAUSE_MS = 2;

/**
 * `run` timed alone, each time after a pause of PAUSE_MS: what a caller meets when
 * commands do not come back to back (a served call: the result travels to the client,
 * which sends the next call). The median over rounds of `ops` runs.
 */
async function paced(name: string, run: () => Promise<unknown>, ops: number): Promise<Figure> {
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    let total = 0n;
    for (let i = 0; i < ops; i++) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      const start = process.hrtime.bigint();
      await run();
      total += process.hrtime.bigint() - start;
    }
    // The first two rounds warm up.
    if (round >= 2) rounds.push(Number(total) / ops);
  }
  return { name, nsPerOp: median(rounds) };
}

/** A here-document of 8 KB written to a file, as a model writes one through the shell. */
const HEREDOC = `cat > heredoc.txt <<'EOF'\n${'a line of text, as a model writes one into a file\n'.repeat(160)}EOF`;

/**
 * A command that does nothing, each after a pause: the shell readies its job meanwhile.
 * `true` cannot change the shell's state, so its job saves none; `cd .` is a builtin
 * that may, so its job saves the state (what any command with a `$`, a `;` or an
 * assignment pays too: see src/shell/stateless-command.ts); `/bin/true` is a program
 * alone, which the job runs by exec, as `bash -c` runs its last command; the
 * here-document is what a long command costs (the shell reads it in one go where bash
 * alone would read it a byte at a time: see `__agenttool_next` in bash-driver.ts).
 */
const PACED_COMMANDS = [
  ['true', 'a command that does nothing (true), no state saved'],
  ['cd .', 'a builtin that may change the state (cd .), state saved'],
  ['/bin/true', 'a program alone (/bin/true), run by exec, no state saved'],
  [HEREDOC, 'a command of 8 KB (a here-document written to a file), state saved'],
] as const;

async function perPacedCommand(dir: string): Promise<void> {
  for (const [command, label] of PACED_COMMANDS) {
    const figures = [await paced('fresh bash -c', () => freshBash(command, dir), 100)];
    for (const [name, options] of [
      ['persistent shell, sandboxed', {}],
      ['persistent shell, unconfined', { sandbox: false }],
    ] as const) {
      const shell = new Shell({ cwd: dir, ...options });
      try {
        await shell.run(command);
        figures.push(await paced(name, () => shell.run(command), 100));
      } finally {
        await shell.close();
      }
    }
    report(
      `Per command, each after a pause of ${PAUSE_MS} ms (not counted): ${label}`,
      figures,
      'fresh bash -c',
    );
  }
}

/** Spawns `argv` and waits for it to exit. */
function spawned(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new Error('nothing to spawn'));
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`)),
    );
  });
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * The shell's start-up to its first answer, and what a sandboxed start consists of: the
 * parts the shell times itself (the protected-path scan, the sandbox runtime's wrap, the
 * cgroups, the spawn, and the wait for bash's ready line), then, measured on their own
 * in the same run, what that wait holds: bubblewrap alone, the runtime's whole wrapped
 * command around a `true` (bubblewrap, the proxies' bridges it starts inside the
 * sandbox, seccomp and the bash -c that run them), a fresh bash, and our init script (an
 * unconfined start less a fresh bash).
 */
async function startUp(dir: string): Promise<void> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const figures = [
    await measure(
      'fresh bash -c true',
      async (n) => {
        for (let i = 0; i < n; i++) await freshBash('true', dir);
      },
      { ops: 20, rounds: 5 },
    ),
  ];
  const parts = new Map<string, number[]>();
  const firstCommand: number[] = [];
  for (const [name, options] of [
    ['start, sandboxed', {}],
    ['start, unconfined', { sandbox: false }],
  ] as const) {
    figures.push(
      await measure(
        name,
        async (n) => {
          for (let i = 0; i < n; i++) {
            const before = performance.now();
            const shell = new Shell({ cwd: dir, ...options });
            await shell.run('true');
            const after = performance.now();
            const started = lastStartTimes(shell);
            if (started === undefined)
              throw new Error(`${name}: the shell recorded no start times`);
            if (name === 'start, sandboxed') {
              for (const [part, ms] of started.parts) {
                parts.set(part, [...(parts.get(part) ?? []), ms]);
              }
              firstCommand.push(after - before - started.totalMs);
            }
            await shell.close();
          }
        },
        { ops: 10, rounds: 5 },
      ),
    );
  }
  const policy = await withProtectedPaths(sandboxPolicy({}, process.env.HOME, dir));
  const wrappedTrue = await leaseSandbox(policy, ['true'], dir);
  try {
    figures.push(
      await measure(
        "the runtime's wrapped command, running true",
        async (n) => {
          for (let i = 0; i < n; i++) await spawned(wrappedTrue.argv, dir, env);
        },
        { ops: 10, rounds: 5 },
      ),
    );
  } finally {
    wrappedTrue.release();
  }
  const bwrap = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const namespaces = ['--unshare-user', '--unshare-pid', '--unshare-net', 'true'];
  figures.push(
    await measure(
      'bubblewrap alone (bwrap --unshare-user,pid,net true)',
      async (n) => {
        for (let i = 0; i < n; i++) await spawned([...bwrap, ...namespaces], dir, env);
      },
      { ops: 20, rounds: 5 },
    ),
  );
  report('Start-up: a new shell to its first answer', figures, 'fresh bash -c true');
  console.log('\n  a sandboxed start, by part (median of the timed starts above):');
  let total = 0;
  for (const [part, values] of parts) {
    const ms = median(values);
    total += ms;
    console.log(`    ${part.padEnd(8)} ${ms.toFixed(2).padStart(7)} ms`);
  }
  console.log(`    ${'sum'.padEnd(8)} ${total.toFixed(2).padStart(7)} ms`);
  if (coldStart !== undefined) {
    // The runtime's manager (its proxies) starts with the first lease, and stops 250 ms
    // after the last one ends: the starts above reuse it.
    const described = coldStart.parts.map(([part, ms]) => `${part} ${ms.toFixed(1)}`).join(', ');
    console.log(`    this process's first sandboxed start: ${described} ms`);
  }
  console.log(`    then the first command (true) ${median(firstCommand).toFixed(2)} ms`);
  console.log('    (the parts end at the ready line; the start rows above also time the close)');
}

/**
 * A served `bash {command: "true"}` call against a served `read_file` of a small file,
 * over one connection to one WorkspaceModule server, as a client with its default
 * settings makes them: our `connectMcp` and the SDK's plain `Client` over the SDK's
 * in-memory pair, `connectMcp` over Streamable HTTP on loopback, and `connectMcp` over
 * stdio to `agenttool workspace` in a process of its own (the built command, as a host
 * starts it). The bash call goes through the session's turns (src/di/turns.ts) and its
 * handle (src/di/handles.ts). Each call is timed back to back and after a pause.
 */
async function served(dir: string): Promise<void> {
  writeFileSync(join(dir, 'small.txt'), 'hello\n');
  const app = await ToolApp.create(WorkspaceModule.forRoot({ root: dir }));
  const server = serveTools(app);
  const listener = await server.listenHttp();
  type Caller = (name: string, args: Record<string, unknown>) => Promise<void>;
  const ours = async (
    target: ConnectOptions['transport'],
  ): Promise<[Caller, () => Promise<void>]> => {
    const remote = await connectMcp({ transport: target });
    const tools = new Map(remote.tools().map((t): [string, Tool] => [t.name, t]));
    let id = 0;
    const call: Caller = async (name, args) => {
      const tool = tools.get(name);
      if (tool === undefined) throw new Error(`no tool ${name}`);
      const c = { id: `call_${++id}`, args: JSON.stringify(args) };
      await tool.execute(c, createContext({ call: c }));
    };
    return [call, () => remote.close()];
  };
  const connections: [string, () => Promise<[Caller, () => Promise<void>]>][] = [
    [
      'in memory, connectMcp (default options)',
      async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        return ours(clientSide);
      },
    ],
    [
      "in memory, the SDK's plain Client",
      async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const client = new Client({ name: 'bench', version: '0' });
        await client.connect(clientSide);
        const call: Caller = async (name, args) => {
          const result = await client.callTool({ name, arguments: args });
          if (result.isError === true) throw new Error(JSON.stringify(result.content));
        };
        return [call, () => client.close()];
      },
    ],
    [
      'Streamable HTTP on loopback, connectMcp (default options)',
      () => ours({ url: listener.url }),
    ],
    [
      // As a desktop host runs it: the command in a process of its own, over its stdio.
      'stdio, `agenttool workspace` in its own process, connectMcp (default options)',
      () =>
        ours({
          command: process.execPath,
          args: [join(__dirname, '..', 'pkg', 'agenttool.js'), 'workspace', dir],
          stderr: 'ignore',
        }),
    ],
  ];
  try {
    for (const [label, open] of connections) {
      const [call, close] = await open();
      try {
        await call('bash', { command: 'true' });
        await call('read_file', { path: 'small.txt' });
        // Alternate the calls within each round, so that all see the same machine. Each
        // is timed back to back (as calls queued on one shell meet it) and each after a
        // pause (as a model's calls come; the pause is not counted).
        const calls = [
          { row: 'served read_file (small file)', name: 'read_file', args: { path: 'small.txt' } },
          { row: 'served bash (sandboxed) true', name: 'bash', args: { command: 'true' } },
          {
            row: 'served bash (sandboxed) cd . (state saved)',
            name: 'bash',
            args: { command: 'cd .' },
          },
        ].map((c) => ({ ...c, backToBack: [] as number[], paced: [] as number[] }));
        for (let round = 0; round < 9; round++) {
          for (const c of calls) {
            const before = process.hrtime.bigint();
            for (let i = 0; i < 30; i++) await call(c.name, c.args);
            const backToBack = process.hrtime.bigint() - before;
            let paced = 0n;
            for (let i = 0; i < 30; i++) {
              await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
              const start = process.hrtime.bigint();
              await call(c.name, c.args);
              paced += process.hrtime.bigint() - start;
            }
            if (round < 2) continue;
            c.backToBack.push(Number(backToBack) / 30);
            c.paced.push(Number(paced) / 30);
          }
        }
        for (const [kind, pick] of [
          ['back to back', (c: (typeof calls)[number]) => c.backToBack],
          [
            `each after a pause of ${PAUSE_MS} ms (not counted)`,
            (c: (typeof calls)[number]) => c.paced,
          ],
        ] as const) {
          report(
            `Over MCP, ${label}, ${kind}`,
            calls.map((c) => ({ name: c.row, nsPerOp: median(pick(c)) })),
            'served read_file (small file)',
          );
        }
      } finally {
        await close();
      }
    }
  } finally {
    await server.close();
    await app.close();
  }
}

/**
 * A workspace's first call as a host makes it: the built command spawned over stdio, the
 * SDK's plain client, its tools listed, then (after `pauseMs`) one call, timed alone.
 */
async function firstCallMs(
  dir: string,
  pauseMs: number,
  name: string,
  args: Record<string, unknown>,
): Promise<number> {
  const client = new Client({ name: 'bench-host', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(__dirname, '..', 'pkg', 'agenttool.js'), 'workspace', dir],
      stderr: 'ignore',
    }),
  );
  try {
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const before = process.hrtime.bigint();
    const result = await client.callTool({ name, arguments: args });
    const ms = Number(process.hrtime.bigint() - before) / 1e6;
    if (result.isError === true) throw new Error(JSON.stringify(result.content));
    return ms;
  } finally {
    await client.close();
  }
}

async function firstCall(dir: string): Promise<void> {
  writeFileSync(join(dir, 'small.txt'), 'hello\n');
  const rows: [string, number, string, Record<string, unknown>][] = [
    ['first read_file, 1 s after tools/list', 1000, 'read_file', { path: 'small.txt' }],
    ['first bash true, at once after tools/list', 0, 'bash', { command: 'true' }],
    ['first bash true, 1 s after tools/list', 1000, 'bash', { command: 'true' }],
  ];
  const times = new Map<string, number[]>(rows.map(([label]) => [label, []]));
  for (let run = 0; run < 5; run++) {
    for (const [label, pause, name, args] of rows) {
      times.get(label)?.push(await firstCallMs(dir, pause, name, args));
    }
  }
  report(
    "A workspace's first call: `agenttool workspace` over stdio, the SDK's Client (median of 5 fresh servers)",
    rows.map(([label]) => ({ name: label, nsPerOp: median(times.get(label) ?? []) * 1e6 })),
    'first read_file, 1 s after tools/list',
  );
  console.log(
    '  (the command readies the sandbox 100 ms after it serves: a first bash at once pays for the runtime and its proxies)',
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shell-bench-'));
  try {
    await perCommand(dir);
    await perPacedCommand(dir);
    await startUp(dir);
    await served(dir);
    await firstCall(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
