import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createContext, outputText, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import {
  APP,
  CLI,
  ensureBuilt,
  killChildren,
  runAgenttool,
  startAgenttool,
  tempDir,
} from './helpers';

beforeAll(() => ensureBuilt(), 300_000);
afterAll(() => killChildren());

const remotes: RemoteTools[] = [];
afterAll(async () => {
  await Promise.all(remotes.map((r) => r.close()));
});

async function callTool(tool: Tool | undefined, args: object): Promise<unknown> {
  if (tool === undefined) throw new Error('no such tool');
  const result = await tool.execute({ id: 'c1', args: JSON.stringify(args) }, createContext());
  return result.output;
}

describe('agenttool serve --stdio', () => {
  it('serves the module to a real client, keeps stdout for the protocol, and closes the app when the client leaves', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', APP, '--stdio'],
      env: { PATH: process.env['PATH'] ?? '', CLI_FIXTURE_JOURNAL: journal, CLI_FIXTURE_LOG: '1' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    const remote = await connectMcp({ transport });
    remotes.push(remote);
    expect(remote.serverInfo.name).toBe('CliAppModule');
    const tools = remote.tools();
    expect(tools.map((t) => t.name)).toEqual([
      'echo',
      'count',
      'ask',
      'visit',
      'fail',
      'note',
      'wait',
      'stall',
    ]);
    expect(await callTool(tools[0], { text: 'over stdio' })).toBe('over stdio');
    // What the module printed on load went to stderr, with the banner.
    expect(stderr).toContain('cli-app fixture loaded');
    expect(stderr).toContain(
      'agenttool: serving CliAppModule over stdio\n  echo   Echo the text.\n',
    );
    await remote.close();
    await exited;
    expect(readFileSync(journal, 'utf8')).toBe('wait tool closed\njournal closed\n');
  });
});

describe('agenttool serve over stdio, on SIGTERM', () => {
  it('stops at once as on Ctrl-C, the call in flight interrupted and answered (a host sends it to end the server, and kills it soon after)', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', APP],
      env: { PATH: process.env['PATH'] ?? '', CLI_FIXTURE_JOURNAL: journal },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Set before the client connects, which keeps it and adds its own.
    const exited = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    const remote = await connectMcp({ transport });
    remotes.push(remote);
    const wait = remote.tools().find((t) => t.name === 'wait');
    let started!: () => void;
    const progressed = new Promise<void>((resolve) => (started = resolve));
    const call = { id: 'w1', args: '{}', onUpdate: () => started() };
    const outcome = Promise.resolve(wait?.execute(call, createContext({ call }))).then(
      (result) => outputText(result?.output ?? ''),
      (error: unknown) => `failed: ${String(error)}`,
    );
    await progressed;
    const pid = transport.pid;
    if (pid === null) throw new Error('the server has no pid');
    process.kill(pid, 'SIGTERM');
    // The tool saw its call's signal abort: the server did not wait for it to finish.
    expect(await outcome).toBe('interrupted');
    await exited;
    expect(stderr).toContain('agenttool: stopping: closing sessions and the app\n');
    expect(stderr).not.toContain('draining');
    expect(readFileSync(journal, 'utf8')).toContain('wait tool closed\n');
  });
});

describe('agenttool serve --http', () => {
  it('serves over Streamable HTTP, prints the URL and the tools, and stops cleanly on SIGINT', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const server = startAgenttool(['serve', APP, '--http', '127.0.0.1:0'], {
      env: { CLI_FIXTURE_JOURNAL: journal },
    });
    const [, url] = await server.waitForStderr(
      /over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/,
    );
    const remote = await connectMcp({ transport: { url: url! } });
    remotes.push(remote);
    const tools = remote.tools();
    expect(
      await callTool(
        tools.find((t) => t.name === 'echo'),
        { text: 'over http' },
      ),
    ).toBe('over http');
    await remote.close();
    server.process.kill('SIGINT');
    const ran = await server.done;
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('  count  Count to n, reporting progress at each step.\n');
    expect(ran.stderr).toContain(
      'agenttool: stopping: closing sessions and the app\nagenttool: stopped\n',
    );
    expect(readFileSync(journal, 'utf8')).toBe(
      'shutting down on SIGINT\nwait tool closed\njournal closed\n',
    );
  });

  it.each(['legacy', 'modern'] as const)(
    'on SIGINT with a call in flight, the call is stopped and its answer reaches a %s client',
    async (protocol) => {
      const server = startAgenttool(['serve', APP, '--http', '127.0.0.1:0']);
      const [, url] = await server.waitForStderr(/over Streamable HTTP at (http:\S+)\n/);
      const remote = await connectMcp({ transport: { url: url! }, protocol });
      remotes.push(remote);
      let started!: () => void;
      const progressed = new Promise<void>((resolve) => (started = resolve));
      const call = { id: 'c1', args: '{}', onUpdate: () => started() };
      const wait = remote.tools().find((t) => t.name === 'wait')!;
      const answer = Promise.resolve(wait.execute(call, createContext({ call }))).then(
        (r) => `answered: ${outputText(r.output)}`,
        (error: Error) => `failed: ${error.message}`,
      );
      // The tool reports progress as it starts to wait: it is running.
      await progressed;
      server.process.kill('SIGINT');
      expect(await answer).toBe('answered: interrupted');
      expect((await server.done).code).toBe(0);
    },
  );

  it('sets the limits --limit names, each given or separated by commas', async () => {
    const server = startAgenttool([
      'serve',
      APP,
      '--http',
      '127.0.0.1:0',
      '--limit',
      'maxBodyBytes=2000, maxCalls=50',
      '--limit',
      'maxCallsPerSubject=1',
    ]);
    const [, url] = await server.waitForStderr(/over Streamable HTTP at (http:\S+)\n/);
    const remote = await connectMcp({ transport: { url: url! } });
    remotes.push(remote);
    const tools = remote.tools();
    const echo = tools.find((t) => t.name === 'echo');
    expect(await callTool(echo, { text: 'fits' })).toBe('fits');
    await expect(callTool(echo, { text: 'x'.repeat(3000) })).rejects.toThrow(
      'the limit is 2000 bytes',
    );
    // One call in flight for this caller: another, while `wait` runs, is refused.
    let started!: () => void;
    const progressed = new Promise<void>((resolve) => (started = resolve));
    const call = { id: 'w1', args: '{}', onUpdate: () => started() };
    const wait = tools.find((t) => t.name === 'wait')!;
    const waiting = Promise.resolve(wait.execute(call, createContext({ call }))).catch(
      () => undefined,
    );
    await progressed;
    await expect(callTool(echo, { text: 'second' })).rejects.toThrow('(maxCallsPerSubject)');
    server.process.kill('SIGINT');
    await waiting;
    expect((await server.done).code).toBe(0);
  });

  it('serves statelessly with --stateless, and our call command works against it', async () => {
    const journal = join(tempDir(), 'journal.txt');
    const server = startAgenttool(['serve', APP, '--http', '0', '--stateless'], {
      env: { CLI_FIXTURE_JOURNAL: journal },
    });
    const [, url] = await server.waitForStderr(/at (http:\S+) \(stateless\)\n/);
    const ran = await runAgenttool(['call', '--http', url!, 'echo', '{"text":"stateless"}']);
    expect(ran).toMatchObject({ code: 0, stdout: 'stateless\n' });
    server.process.kill('SIGTERM');
    expect((await server.done).code).toBe(0);
    // The app's shutdown hooks are told the signal that stopped it.
    expect(readFileSync(journal, 'utf8')).toContain('shutting down on SIGTERM\n');
  });

  it('appends every record the served tools write with --record', async () => {
    const records = join(tempDir(), 'records.jsonl');
    const server = startAgenttool(['serve', APP, '--http', '0', '--record', records]);
    const [, url] = await server.waitForStderr(/at (http:\S+)\n/);
    const ran = await runAgenttool(['call', '--http', url!, 'note', '{"text":"served"}']);
    expect(ran.code).toBe(0);
    server.process.kill('SIGINT');
    await server.done;
    const line = JSON.parse(readFileSync(records, 'utf8').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ moment: 'during', ns: 'fixture:note', data: { text: 'served' } });
  });
});

describe('what agenttool serve says when it starts', () => {
  const banner = join(APP, '../banner-app.module.js');

  it('says once what it serves: the tools, the address, authorization and the sandbox', async () => {
    const ran = await runAgenttool(['serve', banner]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toBe(
      [
        'agenttool: warning: ToolApp.create(BannerModule): tool "quiet" has no description; a model chooses its tools by their descriptions: say what each does and when to use it in @Tool({ description })',
        'agenttool: serving BannerModule over stdio',
        '  jailed  Runs in the fixture jail.',
        '  open    Runs with the rights of the server.',
        '  quiet   (no description)',
        '  authorization: off: over stdio the one client is the process that started this one',
        '  sandbox: jailed confined by fixture-jail; open, quiet not confined',
        'agenttool: stopped',
        '',
      ].join('\n'),
    );
  });

  it('over HTTP, says whether it asks for tokens, and that the tools have no sandbox of their own', async () => {
    const server = startAgenttool(['serve', APP, '--http', '127.0.0.1:0']);
    await server.waitForStderr(/ {2}sandbox: .*\n/);
    server.process.kill('SIGTERM');
    const { stderr } = await server.done;
    expect(stderr.match(/agenttool: serving /g)).toHaveLength(1);
    expect(stderr).toMatch(
      /\n {2}stall {2}Await a promise nothing settles\.\n {2}authorization: off: any client that reaches the address may call the tools \(--auth-issuer requires tokens\)\n {2}sandbox: none of its own: the tools run with the rights of this process\n/,
    );
  });
});

describe('agenttool serve: bad input', () => {
  it('exits 2 with one line for a bad address, --stateless without --http, or no module', async () => {
    const address = await runAgenttool(['serve', APP, '--http', 'nowhere']);
    expect(address.code).toBe(2);
    expect(address.stderr).toContain('--http "nowhere": give a port or host:port');
    const stateless = await runAgenttool(['serve', APP, '--stateless']);
    expect(stateless.code).toBe(2);
    expect(stateless.stderr).toBe('agenttool: --stateless applies to --http only\n');
    const noModule = await runAgenttool(['serve', join(APP, '../no-module.js')]);
    expect(noModule.code).toBe(2);
    expect(noModule.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(noModule.stderr).toContain('exports no @Module class');
    const both = await runAgenttool(['serve', APP, '--stdio', '--http', '0']);
    expect(both.code).toBe(2);
  });

  it.each([
    ['maxCalls', 'give name=value, e.g. --limit maxCalls=2000'],
    ['maxCals=5', 'there is no limit maxCals; the limits are maxSessions, '],
    ['maxCalls=0', 'maxCalls takes a whole number of at least 1, e.g. maxCalls=2000'],
    ['maxCalls=lots', 'maxCalls takes a whole number of at least 1'],
    ['requestTimeoutMs=-1', 'requestTimeoutMs takes a whole number of milliseconds'],
    ['maxCalls=5,maxCalls=6', 'maxCalls is given twice'],
  ])('exits 2 naming a bad --limit %j', async (limit, message) => {
    const ran = await runAgenttool(['serve', APP, '--http', '0', '--limit', limit]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`agenttool: --limit `);
    expect(ran.stderr).toContain(message);
    expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it("passes each caller's share of the bodies in flight to the listener, which checks it", async () => {
    const ran = await runAgenttool([
      'serve',
      APP,
      '--http',
      '0',
      '--limit',
      'maxBodyBytes=2000,maxBodyBytesInFlightPerSubject=1000',
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      'maxBodyBytesInFlightPerSubject (1000) must be at least maxBodyBytes (2000): a body of the largest size could never be read',
    );
  });

  it('exits 2 for an empty --allowed-host (no client could then reach the server)', async () => {
    const ran = await runAgenttool(['serve', APP, '--http', '0', '--allowed-host', '']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'agenttool: --allowed-host "": give the Host names clients use, name or name:port, e.g. --allowed-host mcp.example.com\n',
    );
  });

  it('exits 2 for --limit without --http', async () => {
    const stdio = await runAgenttool(['serve', APP, '--limit', 'maxCalls=5']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toBe('agenttool: --limit applies to --http only\n');
  });

  it('exits 2 for scale-out options that cannot work, and 3 for a Redis it cannot reach', async () => {
    const noKey = await runAgenttool(
      ['serve', APP, '--http', '0', '--redis', 'redis://127.0.0.1:1'],
      {
        env: { AGENTTOOL_REQUEST_STATE_KEY: '' },
      },
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain(
      'agenttool: --redis needs the request-state key every instance shares: set AGENTTOOL_REQUEST_STATE_KEY or give --request-state-key-file',
    );
    // A key the server would refuse is the command's error, before anything starts.
    const short = await runAgenttool(
      ['serve', APP, '--http', '0', '--redis', 'redis://127.0.0.1:1'],
      { env: { AGENTTOOL_REQUEST_STATE_KEY: 'short' } },
    );
    expect(short).toMatchObject({
      code: 2,
      stderr:
        'agenttool: the request-state key (AGENTTOOL_REQUEST_STATE_KEY) is 5 bytes; it must be at least 32 (e.g. openssl rand -hex 32)\n',
    });
    const alone = await runAgenttool(['serve', APP, '--http', '0', '--instance', 'a']);
    expect(alone).toMatchObject({
      code: 2,
      stderr: 'agenttool: --instance applies to --redis only\n',
    });
    const stdio = await runAgenttool(['serve', APP, '--redis', 'redis://127.0.0.1:1']);
    expect(stdio).toMatchObject({ code: 2, stderr: 'agenttool: --redis applies to --http only\n' });
    const grace = await runAgenttool(['serve', APP, '--http', '0', '--drain-grace', 'soon']);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toContain('--drain-grace "soon": give a whole number of milliseconds');
    const unreachable = await runAgenttool(
      ['serve', APP, '--http', '0', '--redis', 'redis://127.0.0.1:1'],
      { env: { AGENTTOOL_REQUEST_STATE_KEY: 'k'.repeat(64) } },
    );
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(
      'agenttool: serve: mcp: scale-out: cannot reach Redis at redis://127.0.0.1:1',
    );
  });

  it('refuses a public address without allowed hosts (DNS-rebinding protection)', async () => {
    const ran = await runAgenttool(['serve', APP, '--http', '0.0.0.0:0']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('needs allowedHosts');
  });
});
