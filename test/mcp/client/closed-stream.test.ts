/**
 * A server that closes while a call runs a tool that ignores the abort: once its grace is
 * over it ends the call's response stream with no answer. The call then fails saying
 * the connection was lost, in both eras, instead of waiting for an answer that cannot
 * come (the 2025-era stream cannot be resumed: the server is gone).
 */
import { createContext, newTool } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe.each(['legacy', 'modern'] as const)('%s era over HTTP', (protocol) => {
  test('a call whose stream the closing server ended without an answer fails with "connection lost"', async () => {
    const started = deferred();
    const release = deferred();
    const server = serveTools(
      [
        newTool({
          name: 'deaf',
          description: 'Ignores the abort',
          execute: async () => {
            started.resolve();
            await release.promise;
            return { output: 'too late' };
          },
        }),
      ],
      { closeGraceMs: 10 },
    );
    const listener = await server.listenHttp();
    // A call that waited for an answer would end on this limit, saying so.
    const remote = await connectMcp({
      transport: { url: listener.url },
      protocol,
      callTimeout: 20_000,
    });
    const call = { id: 'call_1', args: '{}' };
    try {
      const settled = Promise.resolve(
        remote.tools()[0]!.execute(call, createContext({ call })),
      ).then(
        (result) => `returned ${JSON.stringify(result)}`,
        (error: Error) => error.message,
      );
      await started.promise;
      await server.close();
      expect(await settled).toMatch(/^mcp: call "deaf": connection lost: /);
    } finally {
      release.resolve();
      await remote.close();
      await server.close();
    }
  });
});
