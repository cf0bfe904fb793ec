/**
 * A server process that dies mid-call (SIGKILL): the call ends at once with an error that
 * says the connection was lost, over HTTP in both eras as over stdio (also when a process
 * it started keeps its stdout open); and a call that
 * gets no answer within `callTimeout` ends saying so.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { createContext, newTool, type Tool } from 'agenttool';
import { connectMcp, DEFAULT_CALL_TIMEOUT, serveTools } from 'agenttool/mcp';

const ROOT = join(__dirname, '..', '..', '..');
const FIXTURES = join(ROOT, 'dist/test/fixtures/mcp-server');

beforeAll(async () => {
  await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/conformance-fixtures.js')], {
    cwd: ROOT,
  });
}, 300_000);

function start(call: () => Promise<unknown>): { settled: Promise<string> } {
  return {
    settled: call().then(
      () => 'it returned',
      (error: Error) => error.message,
    ),
  };
}

/** What the call settled with, or a note that it was still pending `ms` after the kill. */
function within(settled: Promise<string>, ms: number): Promise<string> {
  return Promise.race([
    settled,
    new Promise<string>((resolve) =>
      setTimeout(() => resolve(`still pending ${ms} ms after the server died`), ms).unref(),
    ),
  ]);
}

async function httpServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(FIXTURES, 'serve-round-trip-http.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('listening ')) resolve(line.slice('listening '.length));
    }),
  );
  return { child, url };
}

function waitTool(tools: readonly Tool[]): Tool {
  return tools.find((t) => t.name === 'wait') as Tool;
}

describe.each(['legacy', 'modern'] as const)('over HTTP, %s era', (protocol) => {
  test('a call whose server is SIGKILLed ends at once with "connection lost"', async () => {
    const { child, url } = await httpServer();
    const remote = await connectMcp({ transport: { url }, protocol });
    try {
      const call = { id: 'call_1', args: '{}' };
      const { settled } = start(async () =>
        waitTool(remote.tools()).execute(call, createContext({ call })),
      );
      // The call is in the server's hands before it dies.
      await new Promise((resolve) => setTimeout(resolve, 200));
      child.kill('SIGKILL');
      expect(await within(settled, 10_000)).toMatch(/^mcp: call "wait": connection lost: /);
    } finally {
      await remote.close();
    }
  });
});

test('over stdio, a call whose server is SIGKILLed ends with "connection closed"', async () => {
  const remote = await connectMcp({
    transport: { command: process.execPath, args: [join(FIXTURES, 'serve-round-trip-stdio.js')] },
    protocol: 'legacy',
  });
  try {
    const pid = (remote.session.transport as { pid?: number | null } | undefined)?.pid;
    expect(typeof pid).toBe('number');
    const call = { id: 'call_1', args: '{}' };
    const { settled } = start(async () =>
      waitTool(remote.tools()).execute(call, createContext({ call })),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid!, 'SIGKILL');
    expect(await within(settled, 10_000)).toBe('mcp: call "wait": mcp: connection closed');
  } finally {
    await remote.close();
  }
});

test('over stdio, a call whose server exits while a process it started keeps its stdout ends with "connection closed"', async () => {
  // A wrapper script that leaves a background job with the server's stdout, then runs
  // the server: its process exits, its stdout stays open.
  const helper = `sleep 41.${process.pid}`;
  const remote = await connectMcp({
    transport: {
      command: 'bash',
      args: [
        '-c',
        `${helper} & exec "$0" "$1"`,
        process.execPath,
        join(FIXTURES, 'serve-round-trip-stdio.js'),
      ],
    },
    protocol: 'legacy',
    callTimeout: 60_000,
  });
  try {
    const pid = (remote.session.transport as { pid?: number | null } | undefined)?.pid;
    const call = { id: 'call_1', args: '{}' };
    const { settled } = start(async () =>
      waitTool(remote.tools()).execute(call, createContext({ call })),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid!, 'SIGKILL');
    expect(await within(settled, 10_000)).toBe('mcp: call "wait": mcp: connection closed');
    await expect(
      Promise.resolve(waitTool(remote.tools()).execute(call, createContext({ call }))),
    ).rejects.toThrow('mcp: call "wait": mcp: connection closed');
  } finally {
    await remote.close();
    await promisify(execFile)('pkill', ['-f', `^${helper.replace('.', '[.]')}$`]).catch(
      () => undefined,
    );
  }
});

test('over stdio, a call whose server closes its stdout and runs on ends with "connection closed", not at its timeout', async () => {
  // Answers the handshake and the listing, then closes its stdout on a call and lives on.
  const server = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
    setInterval(() => undefined, 1000);
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'mute', version: '1' } } });
      else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'wait', inputSchema: { type: 'object' } }] } });
      else if (m.method === 'tools/call') process.stdout.end();
      else if (m.id !== undefined) send({ id: m.id, result: {} });
    });`;
  const remote = await connectMcp({
    transport: { command: process.execPath, args: ['-e', server] },
    protocol: 'legacy',
    callTimeout: 60_000,
  });
  try {
    const call = { id: 'call_1', args: '{}' };
    const { settled } = start(async () =>
      waitTool(remote.tools()).execute(call, createContext({ call })),
    );
    expect(await within(settled, 10_000)).toBe('mcp: call "wait": mcp: connection closed');
  } finally {
    await remote.close();
  }
});

test('a call with no answer within callTimeout ends saying so; 0 means none, and the default is 15 minutes', async () => {
  const server = serveTools(
    newTool({
      name: 'slow',
      description: 'Answers after a while',
      execute: (_call, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ output: 'late' }), 300);
          ctx.signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    }),
  );
  const listener = await server.listenHttp();
  const call = { id: 'call_1', args: '{}' };
  try {
    const impatient = await connectMcp({ transport: { url: listener.url }, callTimeout: 50 });
    await expect(
      Promise.resolve(impatient.tools()[0]!.execute(call, createContext({ call }))),
    ).rejects.toThrow('mcp: call "slow": no answer within 50 ms (the callTimeout option)');
    await impatient.close();
    const patient = await connectMcp({ transport: { url: listener.url }, callTimeout: 0 });
    await expect(
      Promise.resolve(patient.tools()[0]!.execute(call, createContext({ call }))),
    ).resolves.toMatchObject({ output: 'late' });
    await patient.close();
    expect(DEFAULT_CALL_TIMEOUT).toBe(15 * 60 * 1000);
    await expect(connectMcp({ transport: { url: listener.url }, callTimeout: -1 })).rejects.toThrow(
      'mcp: connect: callTimeout must be a number of milliseconds >= 0 (0: none), got -1',
    );
  } finally {
    await server.close();
  }
});
