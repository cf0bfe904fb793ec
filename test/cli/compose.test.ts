// `agenttool serve --config`: one server made of many. One composed server (the built
// command, over HTTP on loopback) serves a module file's tools beside three servers of
// its configuration: the reference everything-server and one of our apps over stdio,
// and one of our apps over HTTP (served by this test), plus two that never start. Two
// clients, one per protocol era, list and call through it. Then `list --config`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, newTool, type Result, structuredResult, type Tool } from 'agenttool';
import {
  connectMcp,
  type HttpListener,
  type McpToolServer,
  type RemoteTools,
  serveTools,
} from 'agenttool/mcp';
import {
  APP,
  CLI,
  ensureBuilt,
  FIXTURES,
  killChildren,
  type Running,
  runAgenttool,
  startAgenttool,
  tempDir,
} from './helpers';
import { allGone, descendants, type ProcessInfo } from '../support/processes';
import { until as waitUntil } from '../support/until';

const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '../dist/index.js',
);
const REMOTE_APP = join(FIXTURES, 'compose-remote.module.js');
const SECRET = 'sekret-value-9f3';

let web: McpToolServer;
let webListener: HttpListener;
let composed: Running;
let modern: RemoteTools;
let legacy: RemoteTools;
let journal: string;
let dir: string;
let listChanges = 0;

function webServer(): McpToolServer {
  return serveTools([
    newTool({
      name: 'clock',
      description: 'The time on the web server',
      annotations: { readOnly: true, idempotent: true, openWorld: false },
      outputSchema: { type: 'object', properties: { time: { type: 'string' } } },
      execute: () => structuredResult({ time: '12:00' }),
    }),
    newTool({ name: 'internal', description: 'Not for agents', execute: () => ({ output: 'no' }) }),
  ]);
}

beforeAll(async () => {
  ensureBuilt();
  dir = tempDir();
  journal = join(dir, 'journal.txt');
  writeFileSync(journal, '');
  mkdirSync(join(dir, 'sub'));
  web = webServer();
  webListener = await web.listenHttp({ port: 0 });
  const config = {
    // Read by agenttool only: a comment such as VS Code's mcp.json may hold.
    mcpServers: {
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        protocol: 'legacy',
        tools: {
          include: ['echo', 'get-sum', 'get-structured-content', 'get-tiny-image'],
          transform: {
            echo: { rename: 'say', description: 'Say the message back' },
            'get-sum': { fixed: { a: 40 }, tags: ['math'] },
            'get-tiny-image': { tags: ['hidden'] },
          },
        },
      },
      mine: {
        command: process.execPath,
        args: [CLI, 'serve', REMOTE_APP],
        // Relative to the file's folder, wherever agenttool was started.
        cwd: 'sub',
        env: { COMPOSE_JOURNAL: journal, API_TOKEN: SECRET },
        protocol: 'modern',
      },
      web: { type: 'http', url: webListener.url, tools: { exclude: ['internal'] } },
      broken: { command: join(dir, 'no-such-server'), env: { TOKEN: SECRET } },
      unreachable: { url: `http://127.0.0.1:1/mcp?token=${SECRET}`, headers: { 'X-Key': SECRET } },
    },
    tools: { include: ['echo', 'count'], transform: { count: { tags: ['local'] } } },
    excludeTags: ['hidden'],
    retry: { initialDelayMs: 50, maxAttempts: 2 },
  };
  writeFileSync(join(dir, 'servers.json'), `// composed\n${JSON.stringify(config, null, 2)}`);
  // Started from the config's folder's parent: paths in the file are the file's.
  composed = startAgenttool(
    ['serve', APP, '--config', join(dir, 'servers.json'), '--http', '127.0.0.1:0'],
    {
      cwd: join(dir, '..'),
    },
  );
  const [, url] = await composed.waitForStderr(/over Streamable HTTP at (\S+)/);
  modern = await connectMcp({ transport: { url: url! }, protocol: 'modern', elicitation: true });
  legacy = await connectMcp({
    transport: { url: url! },
    protocol: 'legacy',
    elicitation: true,
    onToolsChanged: () => void listChanges++,
  });
}, 90_000);

afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  composed?.process.kill('SIGINT');
  await composed?.done;
  await web?.close();
  killChildren();
});

function tool(remote: RemoteTools, name: string): Tool {
  const found = remote.tools().find((t) => t.name === name);
  if (found === undefined) throw new Error(`no ${name} among ${names(remote).join(', ')}`);
  return found;
}

function names(remote: RemoteTools): string[] {
  return remote.tools().map((t) => t.name);
}

async function call(
  remote: RemoteTools,
  name: string,
  args: unknown,
  init: Parameters<typeof createContext>[0] = {},
): Promise<Result> {
  const c = init.call ?? { id: 'c', args: JSON.stringify(args) };
  return tool(remote, name).execute(c, createContext({ ...init, call: c }));
}

const until = (done: () => boolean, what: string): Promise<void> => waitUntil(done, what, 40_000);

describe('agenttool serve --config', () => {
  it("lists the module's tools, then each server's as <name>__<tool>, transformed", () => {
    expect(names(legacy)).toEqual([
      'echo',
      'count',
      'everything__say',
      'everything__get-structured-content',
      'everything__get-sum',
      'mine__slow',
      'mine__ask',
      'mine__die',
      'web__clock',
    ]);
    expect(names(modern)).toEqual(names(legacy));
    expect(tool(legacy, 'everything__say').description).toBe('Say the message back');
    const sum = tool(legacy, 'everything__get-sum').parameters as {
      properties: object;
      required: string[];
    };
    expect(Object.keys(sum.properties)).toEqual(['b']);
    expect(sum.required).toEqual(['b']);
    // Annotations and output schemas pass through unchanged.
    expect(tool(modern, 'web__clock').annotations).toMatchObject({
      readOnly: true,
      idempotent: true,
      openWorld: false,
    });
    expect(tool(modern, 'web__clock').outputSchema).toEqual({
      type: 'object',
      properties: { time: { type: 'string' } },
    });
    expect(tool(legacy, 'everything__get-structured-content').outputSchema).toBeDefined();
  });

  it('reports the servers that never start by name, without their secrets', async () => {
    await composed.waitForStderr(/mcp server "unreachable": .*given up after 2 attempts/);
    const stderr = (await composed.waitForStderr(/mcp server "broken": .*given up/)).input ?? '';
    expect(stderr).toMatch(
      /mcp server "broken": could not start: .*ENOENT.*trying again in 50 ms \(attempt 2 of 2\)/,
    );
    expect(stderr).toMatch(/mcp server everything: up, 4 tools/);
    expect(stderr).not.toContain(SECRET);
  });

  it('calls through: a fixed argument merged, a caller may not set it, structured content', async () => {
    expect((await call(modern, 'everything__get-sum', { b: 2 })).output).toContain('42');
    await expect(call(legacy, 'everything__get-sum', { a: 1, b: 2 })).rejects.toThrow(
      /invalid arguments: (unexpected property "a"|.*additional properties \["a"\])/,
    );
    const clock = await call(legacy, 'web__clock', {});
    expect(clock.structured).toEqual({ time: '12:00' });
    expect((await call(modern, 'echo', { text: 'local' })).output).toBe('local');
  });

  it.each([
    ['2026-07-28', () => modern],
    ['2025', () => legacy],
  ])('puts the remote question to a %s client', async (_era, client) => {
    const result = await call(
      client(),
      'mine__ask',
      {},
      {
        elicitor: (question) => {
          expect(question.message).toBe('Your name?');
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    );
    expect(result.output).toBe('hello Ada');
  });

  it('forwards progress, and a cancel reaches the remote server', async () => {
    const updates: Result[] = [];
    const controller = new AbortController();
    const c = { id: 'slow', args: '{}', onUpdate: (u: Result) => updates.push(u) };
    const running = call(legacy, 'mine__slow', {}, { call: c, signal: controller.signal });
    await until(() => updates.length > 0, 'progress');
    expect(updates[0]?.output).toBe('started');
    controller.abort();
    await expect(running).rejects.toThrow('context canceled');
    await until(
      () => readFileSync(journal, 'utf8').includes('slow cancelled'),
      'the cancel to arrive',
    );
  });

  it('serves the remote prompts under the prefix', async () => {
    const prompts = await modern.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('everything__simple-prompt');
    const got = await modern.getPrompt('everything__simple-prompt');
    expect(got.messages.length).toBeGreaterThan(0);
  });

  it('withdraws the tools of a server that dies mid-call, tells the clients, and restarts it', async () => {
    const before = listChanges;
    // The call's error names the server it could not reach.
    await expect(call(modern, 'mine__die', {})).rejects.toThrow(
      /mcp server "mine": mcp: call "die": .*connection (closed|lost)/,
    );
    await composed.waitForStderr(/mcp server "mine": connection lost: .*its 3 tools are withdrawn/);
    await until(
      () => listChanges >= before + 2 && names(legacy).includes('mine__ask'),
      'the server to come back',
    );
    await composed.waitForStderr(/mcp server "mine": connected again: 3 tools/);
    expect(names(legacy)).toContain('web__clock');
    const result = await call(
      legacy,
      'mine__ask',
      {},
      {
        elicitor: () => ({ action: 'accept', content: { name: 'again' } }),
      },
    );
    expect(result.output).toBe('hello again');
  });

  it('withdraws the tools of an HTTP server that stops answering', async () => {
    await webListener.close();
    await expect(call(legacy, 'web__clock', {})).rejects.toThrow(/mcp server "web": mcp: /);
    await until(() => !names(legacy).includes('web__clock'), 'the tools to leave');
    await composed.waitForStderr(/mcp server "web": connection lost/);
  });
});

describe('agenttool list --config', () => {
  it('refuses a configuration that is not a regular file, or one too large to be one', async () => {
    const folder = await runAgenttool(['list', '--config', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(
      "it is not a regular file (a folder, a pipe or a device); give the configuration's JSON file",
    );
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const piped = await runAgenttool(['list', '--config', fifo]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('it is not a regular file');
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, ' '.repeat(11 * 1024 * 1024));
    const large = await runAgenttool(['list', '--config', huge]);
    expect(large.code).toBe(2);
    expect(large.stderr).toContain(
      `it is ${11 * 1024 * 1024} bytes; a configuration file is at most ${10 * 1024 * 1024}`,
    );
  });

  it('lists the transformed tools and their tags, and refuses a malformed file by entry and field', async () => {
    const server = webServer();
    const listener = await server.listenHttp({ port: 0 });
    try {
      const file = join(dir, 'web.json');
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            web: {
              url: listener.url,
              tools: { transform: { clock: { rename: 'now', tags: ['safe'] } } },
            },
          },
          includeTags: ['safe'],
        }),
      );
      const listed = await runAgenttool(['list', '--config', file, '--only', 'tools']);
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        /^web__now\s+sha256:[0-9a-f]{64}\s+output tags=safe\s+read-only, closed world\n$/m,
      );
      expect(listed.stdout).not.toContain('internal');

      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { web: { url: listener.url, headers: { K: 1 } } } }),
      );
      const bad = await runAgenttool(['list', '--config', file]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toBe(`agenttool: ${file}: mcpServers.web.headers.K: must be a string\n`);

      // A byte-order mark, as some editors write one, is read past.
      writeFileSync(
        file,
        `\uFEFF${JSON.stringify({ mcpServers: { web: { url: listener.url } } })}`,
      );
      const marked = await runAgenttool(['list', '--config', file, '--only', 'tools']);
      expect(marked.stderr).toBe('');
      expect(marked.stdout).toMatch(/^web__clock\s/m);

      // A server that cannot start: the list says its tools are missing, and exits 3.
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            web: { url: listener.url },
            gone: { command: join(dir, 'no-such-server') },
          },
        }),
      );
      const partial = await runAgenttool(['list', '--config', file, '--only', 'tools']);
      expect(partial.code).toBe(3);
      // One attempt: a one-shot command does not say it will try again.
      expect(partial.stderr).not.toContain('trying again');
      expect(partial.stdout).toMatch(/^web__clock\s/m);
      expect(partial.stderr).toMatch(
        /agenttool: list: the list lacks the tools of a server that is not up:\n {2}mcp server "gone": given-up: could not start: .*ENOENT/,
      );

      // A misspelt key composes nothing: refused, saying what is missing.
      writeFileSync(file, JSON.stringify({ mcpServer: { web: { url: listener.url } } }));
      const misspelt = await runAgenttool(['list', '--config', file]);
      expect(misspelt).toMatchObject({
        code: 2,
        stderr: `agenttool: ${file}: has no "mcpServers" (an object of servers by name), nor VS Code's "servers"\n`,
      });
    } finally {
      await server.close();
    }
  });
});

describe("a configuration's ${input:...} (VS Code's prompted inputs)", () => {
  it('is refused naming the server and the field, as a VS Code prompt, not as an unset variable', async () => {
    const vscode = join(dir, 'vscode-inputs');
    mkdirSync(join(vscode, '.vscode'), { recursive: true });
    const file = join(vscode, '.vscode', 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
        servers: {
          search: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'search-server'],
            env: { API_KEY: '${input:api-key}' },
          },
        },
      }),
    );
    const prompt =
      'holds ${input:api-key}, a value VS Code asks its user for when it starts the server ("inputs" of its mcp.json); agenttool asks no one, so such prompts are not supported here: write the value, or ${env:NAME} with --expand-env (env in code) to take it from the environment';
    for (const expand of [['--expand-env'], []]) {
      const ran = await runAgenttool(['list', '--config', file, ...expand]);
      expect(ran).toMatchObject({
        code: 2,
        stderr: `agenttool: ${file}: servers.search.env.API_KEY: ${prompt}\n`,
      });
    }
    // In args too, where another placeholder without --expand-env is an ordinary argument.
    writeFileSync(
      file,
      JSON.stringify({
        servers: { search: { command: 'search', args: ['--key=${input:api-key}'] } },
      }),
    );
    const inArgs = await runAgenttool(['list', '--config', file]);
    expect(inArgs).toMatchObject({
      code: 2,
      stderr: `agenttool: ${file}: servers.search.args[0]: ${prompt}\n`,
    });
  });
});

describe('agenttool serve --config, stopped while it starts', () => {
  // Over stdio SIGTERM stops as Ctrl-C does, unless a drain was asked for.
  it.each([
    ['SIGTERM', [], 'agenttool: stopping'],
    ['SIGINT', [], 'agenttool: stopping'],
    ['SIGTERM', ['--drain-grace', '5000'], 'agenttool: draining'],
  ] as const)(
    'on %s (%j) while a composed server starts, closes it once started and leaves nothing running',
    async (signal, flags, said) => {
      // A server that takes a while to start: a shell that sleeps, then runs it.
      const file = join(dir, `slow-${signal}-${flags.length}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            slow: {
              command: 'sh',
              args: ['-c', 'sleep 1.5; exec "$0" "$1" stdio', process.execPath, EVERYTHING],
            },
          },
        }),
      );
      const running = startAgenttool(['serve', '--config', file, ...flags]);
      const pid = running.process.pid!;
      // The composed server's shell is up (its sleep started): the start is under way.
      let started: ProcessInfo[] = [];
      for (let i = 0; i < 250 && !started.some((p) => p.comm === 'sleep'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        started = descendants(pid);
      }
      expect(started.map((p) => p.comm)).toContain('sleep');
      running.process.kill(signal);
      const ran = await running.done;
      expect(ran.stderr).toContain(said);
      expect(ran.stderr).toContain('agenttool: stopped');
      expect(ran.code).toBe(0);
      // The composed server (the shell, then what it ran) is gone with the command.
      expect(await allGone(descendants(pid).concat(started))).toEqual([]);
    },
    30_000,
  );
});
