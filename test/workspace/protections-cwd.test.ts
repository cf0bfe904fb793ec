/**
 * The sandbox protects the workspace's git hooks, git config and shell start-up files
 * whatever folder the server was started from: the built `agenttool workspace`, over
 * stdio and over Streamable HTTP, started from `/`, from an unrelated folder and from the
 * workspace itself, on a workspace that is a git repository with a `.bashrc`. Its first
 * `bash` call answers (started from `/`, the sandbox runtime's own scan of the server's
 * folder used to stall it), the protected files cannot be written from inside while an
 * ordinary file can (nor through the file tools, which run outside the sandbox), a
 * missing protected name gets no stand-in in the workspace (git sees none, inside or
 * out), a missing hooks folder cannot be made, and once the server is closed, or
 * SIGKILLed, none of its processes (bubblewrap, bash, socat, the janitor) is left, nor a
 * mount point in the workspace.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createContext, outputText, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { CLI, ensureBuilt, killChildren, startAgenttool, tempDir } from '../cli/helpers';
import { allGone, descendants, type ProcessInfo } from '../support/processes';

/** A running server and the client connected to it. */
interface Served {
  readonly pid: number;
  readonly remote: RemoteTools;
  /** Closes the client, then ends the server as a user would. */
  close(): Promise<void>;
}

const started: number[] = [];

beforeAll(() => ensureBuilt(), 300_000);

afterAll(() => {
  // Whatever a failed test left running is ours to end.
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  killChildren();
});

async function serveStdio(
  root: string,
  cwd: string,
  args: readonly string[] = [],
): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'workspace', root, ...args],
    cwd,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const remote = await connectMcp({ transport });
  const pid = transport.pid;
  if (pid === null) throw new Error('the stdio server has no pid');
  started.push(pid);
  return { pid, remote, close: () => remote.close() };
}

async function serveHttp(root: string, cwd: string): Promise<Served> {
  const server = startAgenttool(['workspace', root, '--http', '127.0.0.1:0'], { cwd });
  const pid = server.process.pid;
  if (pid === undefined) throw new Error('the HTTP server has no pid');
  started.push(pid);
  const [, url] = (await server.waitForStderr(/over Streamable HTTP at (\S+)/)) as [string, string];
  const remote = await connectMcp({ transport: { url } });
  return {
    pid,
    remote,
    close: async () => {
      await remote.close();
      server.process.kill('SIGTERM');
      await server.done;
    },
  };
}

let calls = 0;

async function callTool(
  remote: RemoteTools,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name) as Tool;
  calls += 1;
  const call = { id: `call_${calls}`, args: JSON.stringify(args) };
  return outputText((await tool.execute(call, createContext({ call }))).output);
}

const bash = (remote: RemoteTools, command: string) => callTool(remote, 'bash', { command });

/**
 * What the file tools, which run in the server outside the sandbox, answer to a write
 * and an append of each protected file: `<path>: refused` for a refusal naming it.
 */
async function fileToolAttempts(remote: RemoteTools): Promise<string[]> {
  const answers: string[] = [];
  for (const path of PROTECTED) {
    for (const tool of ['write_file', 'append_file']) {
      const content = '#!/bin/sh\necho escaped\n';
      // A remote tool error is thrown, with the tool's own message.
      const text = await callTool(remote, tool, { path, content }).then(
        (output) => `answered ${JSON.stringify(output)}`,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const refused = text.startsWith(
        `cannot ${tool === 'write_file' ? 'write' : 'append to'} ${JSON.stringify(path)}: `,
      );
      answers.push(`${tool} ${path}: ${refused ? 'refused' : text}`);
    }
  }
  return answers;
}

/** A git repository with a `.bashrc`, and what its protected files hold. */
function workspace(): { root: string; before: Record<string, string | undefined> } {
  const root = realpathSync(tempDir());
  const git = spawnSync('git', ['init', '-q', root], { encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
  writeFileSync(join(root, '.bashrc'), 'echo from the workspace bashrc\n');
  // No hooks folder yet (as a clone made without templates has none): none can be made.
  rmSync(join(root, '.git', 'hooks'), { recursive: true, force: true });
  return { root, before: protectedContents(root) };
}

const PROTECTED = ['.git/hooks/pre-commit', '.git/config', '.bashrc'];

function protectedContents(root: string): Record<string, string | undefined> {
  return Object.fromEntries(
    PROTECTED.map((path) => {
      const full = join(root, path);
      return [path, existsSync(full) ? readFileSync(full, 'utf8') : undefined];
    }),
  );
}

/** Polls until the workspace holds exactly `names` (mount points go a moment after). */
async function settledListing(root: string, names: readonly string[]): Promise<string[]> {
  let now: string[] = [];
  for (let i = 0; i < 250; i += 1) {
    now = readdirSync(root).sort();
    if (JSON.stringify(now) === JSON.stringify([...names].sort())) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return now;
}

/** The runtime's empty mount sources (`claude-empty-*`) a bubblewrap process binds. */
function mountSourcesOf(pid: number): string[] {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return words.filter((word) => /\/claude-empty-[A-Za-z0-9]+$/.test(word));
  } catch {
    return [];
  }
}

/** Polls until none of `paths` exists; those that still do then. */
async function remaining(paths: readonly string[]): Promise<string[]> {
  for (let i = 0; i < 250; i += 1) {
    if (!paths.some((path) => existsSync(path))) return [];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return paths.filter((path) => existsSync(path));
}

const ATTEMPT = PROTECTED.map(
  (path) =>
    `if (printf '#!/bin/sh\\necho escaped\\n' >> ${path}) 2>/dev/null; then echo "${path}: written"; else echo "${path}: refused"; fi`,
).join('; ');

describe.each([
  ['stdio', serveStdio],
  ['Streamable HTTP', serveHttp],
] as const)('the workspace served over %s', (_transport, serve) => {
  describe.each(['/', 'an unrelated folder', 'the workspace'] as const)(
    'started from %s',
    (from) => {
      it.each(['closed', 'SIGKILLed'] as const)(
        'protects the repository and the start-up files, and leaves nothing once %s',
        async (ending) => {
          const { root, before } = workspace();
          const listing = readdirSync(root);
          const cwd = from === '/' ? '/' : from === 'the workspace' ? root : tempDir();
          const served = await serve(root, cwd);
          let helpers: ProcessInfo[] = [];
          let sources: string[] = [];
          let heldHooks = false;
          try {
            expect(await bash(served.remote, 'pwd')).toBe(`${root}\n`);
            // Protected names that are missing get no empty file standing in (git would
            // list it, and a host's `git add -A` commit it), inside or out; those that
            // run on their own once made get an empty folder, which git passes over.
            expect(await bash(served.remote, 'git status --porcelain --untracked-files=all')).toBe(
              '?? .bashrc\n',
            );
            const host = spawnSync('git', ['-C', root, 'status', '--porcelain'], {
              encoding: 'utf8',
            });
            expect(host.stdout).toBe('?? .bashrc\n');
            const standing = readdirSync(root).filter((name) => !listing.includes(name));
            expect(standing.sort()).toEqual(
              [
                '.vscode',
                '.idea',
                // The agents' settings files and folders, held whole (see docs/sandbox.md).
                ...['.mcp.json', '.crush.json'],
                ...['.claude', '.cursor', '.gemini', '.qwen', '.codex', '.zed', '.kiro'],
                ...['.amazonq', '.continue', '.roo', '.kilocode', '.windsurf', '.opencode'],
                ...['.factory', '.junie', '.trae'],
              ].sort(),
            );
            for (const name of standing) expect(readdirSync(join(root, name))).toEqual([]);
            expect(await bash(served.remote, ATTEMPT)).toBe(
              PROTECTED.map((path) => `${path}: refused\n`).join(''),
            );
            expect(await fileToolAttempts(served.remote)).toEqual(
              PROTECTED.flatMap((path) => [
                `write_file ${path}: refused`,
                `append_file ${path}: refused`,
              ]),
            );
            expect(await bash(served.remote, 'echo work > notes.txt && cat notes.txt')).toBe(
              'work\n',
            );
            heldHooks = existsSync(join(root, '.git', 'hooks'));
            helpers = descendants(served.pid);
            sources = helpers.flatMap((proc) => mountSourcesOf(proc.pid));
          } finally {
            if (ending === 'closed') await served.close();
            else process.kill(served.pid, 'SIGKILL');
          }
          // The shell in its sandbox, the proxy's bridges and the janitor; no scan.
          const names = new Set(helpers.map((proc) => proc.comm));
          expect(names).toEqual(new Set(['bwrap', 'bash', 'socat', ...names]));
          expect(names.has('rg')).toBe(false);
          expect(protectedContents(root)).toEqual(before);
          expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('work\n');
          expect(await allGone(helpers)).toEqual([]);
          // The mount points bubblewrap made for absent protected paths are gone too,
          // and the empty folder it bound over the absent protected folders.
          expect(await settledListing(root, [...listing, 'notes.txt'])).toEqual(
            [...listing, 'notes.txt'].sort(),
          );
          // The missing hooks folder was held by a mount point inside .git: gone too.
          expect(heldHooks).toBe(true);
          expect(await remaining([...sources, join(root, '.git', 'hooks')])).toEqual([]);
        },
        60_000,
      );
    },
  );
});

it('keeps a command from making what an editor or an agent would run in the folder, and leaves nothing of it', async () => {
  const root = realpathSync(tempDir());
  const served = await serveStdio(root, root);
  try {
    const made = await bash(
      served.remote,
      [
        'mkdir -p .vscode && echo "{}" > .vscode/tasks.json',
        'echo "{}" > .mcp.json',
        'mkdir -p .idea/runConfigurations',
        'mkdir -p .claude/commands && echo x > .claude/commands/x.md',
        'echo "{}" > .claude/settings.json',
      ]
        .map((step) => `if (${step}) 2>/dev/null; then echo made; else echo refused; fi`)
        .join('; '),
    );
    expect(made).toBe('refused\n'.repeat(5));
  } finally {
    await served.close();
  }
  expect(await settledListing(root, [])).toEqual([]);
}, 60_000);

it("keeps the agents' settings folders read-only, there or not, through bash and the file tools", async () => {
  const root = realpathSync(tempDir());
  mkdirSync(join(root, '.claude'));
  const settings = join(root, '.claude', 'settings.json');
  writeFileSync(settings, '{}\n');
  mkdirSync(join(root, 'sub', '.claude'), { recursive: true });
  const served = await serveStdio(root, root);
  try {
    // An existing settings file; a missing one in an existing `.claude`, at the root and
    // one level down; one in a missing `.cursor` and `.gemini`: Claude Code runs the
    // hooks of its local settings on the host, Cursor and Gemini CLI their MCP servers.
    const attempts = [
      `echo '{"hooks":{}}' > .claude/settings.json`,
      `echo '{"hooks":{}}' > .claude/settings.local.json`,
      `echo '{"hooks":{}}' > sub/.claude/settings.local.json`,
      `mkdir -p .cursor && echo '{"mcpServers":{}}' > .cursor/mcp.json`,
      `mkdir -p .gemini && echo '{"mcpServers":{}}' > .gemini/settings.json`,
    ];
    expect(
      await bash(
        served.remote,
        attempts
          .map((attempt) => `if (${attempt}) 2>/dev/null; then echo written; else echo refused; fi`)
          .join('\n'),
      ),
    ).toBe('refused\n'.repeat(attempts.length));
    const written = await callTool(served.remote, 'write_file', {
      path: '.claude/settings.local.json',
      content: '{"hooks":{}}',
    }).then(
      () => 'written',
      (error: unknown) => String(error),
    );
    expect(written).toMatch(
      /\.claude stays read-only: the agent or editor it configures runs the commands its settings name/,
    );
  } finally {
    await served.close();
  }
  expect(readFileSync(settings, 'utf8')).toBe('{}\n');
  expect(existsSync(join(root, '.claude', 'settings.local.json'))).toBe(false);
  expect(existsSync(join(root, 'sub', '.claude', 'settings.local.json'))).toBe(false);
  // The folders that stood in are gone with the shell.
  expect(existsSync(join(root, '.cursor'))).toBe(false);
  expect(existsSync(join(root, '.gemini'))).toBe(false);
}, 60_000);

it("keeps the server's record from the shell and the file tools, inside the workspace", async () => {
  // The record holds every caller's process groups, which a host stops after a crash: a
  // command must neither read it nor plant one there.
  const root = realpathSync(tempDir());
  const served = await serveStdio(root, root, ['--record', 'calls.jsonl']);
  const record = join(root, 'calls.jsonl');
  try {
    expect(await bash(served.remote, 'echo first')).toBe('first\n');
    expect(
      await bash(
        served.remote,
        [
          'if [ -s calls.jsonl ] && grep -q pgid calls.jsonl 2>/dev/null; then echo read; else echo unread; fi',
          `if (echo '{"ns":"shell:process-group","data":{"pgid":1}}' >> calls.jsonl) 2>/dev/null; then echo planted; else echo refused; fi`,
        ].join('\n'),
      ),
    ).toBe('unread\nrefused\n');
    for (const [tool, args] of [
      ['read_file', { path: 'calls.jsonl' }],
      ['write_file', { path: 'calls.jsonl', content: 'x' }],
      ['append_file', { path: 'calls.jsonl', content: 'x' }],
    ] as const) {
      const answer = await callTool(served.remote, tool, args).then(
        () => 'answered',
        (error: unknown) => String(error),
      );
      expect(answer).toMatch(/calls\.jsonl.*which the workspace keeps from its tools/);
    }
  } finally {
    await served.close();
  }
  // The server's own records are there, and nothing a command wrote.
  const lines = readFileSync(record, 'utf8').trim().split('\n');
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const line of lines) {
    expect(JSON.parse(line)).toMatchObject({ ns: 'shell:process-group', moment: 'during' });
  }
  expect(readFileSync(record, 'utf8')).not.toContain('"pgid":1}');
}, 60_000);
