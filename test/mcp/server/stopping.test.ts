/**
 * A server stopped with calls in flight (`close()`): new calls are refused, running ones
 * are aborted and each answers "mcp: the server is shutting down" before the transports
 * close, in both eras, over HTTP and stdio-like connections; a tool that ignores its
 * signal holds the close up no longer than the grace period.
 */
import { PassThrough } from 'node:stream';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createContext, newTool, outputText, type Tool } from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { deferred } from './helpers';

interface Waiting {
  readonly tool: Tool;
  /** Resolves with the abort reason once the running call was stopped. */
  readonly stopped: Promise<string>;
  /** Resolves once the call has started. */
  readonly started: Promise<void>;
}

function waiting(): Waiting {
  const started = deferred();
  const stopped = deferred<string>();
  const tool = newTool({
    name: 'wait',
    description: 'Waits until it is stopped',
    execute: (_call, ctx) =>
      new Promise((_resolve, reject) => {
        started.resolve();
        ctx.signal.addEventListener('abort', () => {
          stopped.resolve(String(ctx.signal.reason));
          reject(new Error('stopped'));
        });
      }),
  });
  return { tool, stopped: stopped.promise, started: started.promise };
}

function callOf(remote: RemoteTools, name = 'wait'): Promise<string> {
  const tool = remote.tools().find((t) => t.name === name)!;
  const call = { id: 'call_1', args: '{}' };
  return Promise.resolve(tool.execute(call, createContext({ call }))).then(
    (r) => `answered: ${outputText(r.output)}`,
    (error: Error) => `failed: ${error.message}`,
  );
}

describe.each(['legacy', 'modern'] as const)('over HTTP, %s era', (protocol) => {
  test('a running call is stopped and answers that the server is shutting down', async () => {
    const { tool, stopped, started } = waiting();
    const server = new McpToolServer([tool]);
    const listener = await server.listenHttp();
    const remote = await connectMcp({ transport: { url: listener.url }, protocol });
    try {
      const answer = callOf(remote);
      await started;
      const closed = server.close();
      expect(await answer).toBe('failed: mcp: the server is shutting down');
      expect(await stopped).toContain('mcp: the server is shutting down');
      await closed;
    } finally {
      await remote.close();
    }
  });
});

test('a call that arrives while the server stops is refused, and the close waits for the one running', async () => {
  const { tool, started } = waiting();
  const blocker = deferred();
  const stubborn = newTool({
    name: 'stubborn',
    description: 'Finishes when it is let, not before',
    execute: async () => {
      await blocker.promise;
      return { output: 'finished anyway' };
    },
  });
  const server = new McpToolServer([tool, stubborn]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const remote = await connectMcp({ transport: clientEnd, protocol: 'legacy' });
  try {
    const running = callOf(remote, 'stubborn');
    const waitingCall = callOf(remote, 'wait');
    await started;
    let closedYet = false;
    const closed = server.close().then(() => (closedYet = true));
    expect(await callOf(remote, 'wait')).toBe('failed: mcp: the server is shutting down');
    expect(await waitingCall).toBe('failed: mcp: the server is shutting down');
    // The stubborn call's answer, a success, goes out before the connection closes.
    expect(closedYet).toBe(false);
    blocker.resolve();
    expect(await running).toBe('answered: finished anyway');
    await closed;
  } finally {
    await remote.close();
  }
});

test('a tool that ignores its signal holds the close no longer than closeGraceMs', async () => {
  const never = newTool({
    name: 'never',
    description: 'Never returns',
    execute: () => new Promise(() => undefined),
  });
  const server = new McpToolServer([never], { closeGraceMs: 50 });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const connection = await server.serveStdio({ stdin, stdout });
  await server.close();
  await connection.closed;
  expect(server.sessions).toHaveLength(0);
});
