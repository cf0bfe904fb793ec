/**
 * A served tool that stops on its call's cancellation by throwing the signal's reason
 * (`ctx.signal.throwIfAborted()`, as docs/tools.md shows) was cancelled, not broken: the
 * server reports no panic for it, whatever the reason is (a client's
 * `notifications/cancelled` carries a string, which is no Error). A tool that fails
 * otherwise after the cancellation is still reported.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { newTool, Param, Tool, toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { until } from '../../support/until';

/** Resolves once `signal` aborts. */
const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

const started: string[] = [];

const stops = newTool({
  name: 'stops',
  description: 'Waits, then stops as its signal says',
  execute: async (_call, ctx) => {
    started.push('stops');
    await aborted(ctx.signal);
    ctx.signal.throwIfAborted();
    return { output: 'never' };
  },
});

const breaks = newTool({
  name: 'breaks',
  description: 'Waits, then fails with a programming fault of its own',
  execute: async (_call, ctx) => {
    started.push('breaks');
    await aborted(ctx.signal);
    throw new TypeError('cleanup read undefined');
  },
});

class WaitArgs {
  @Param('Why', { type: 'string' }) why!: string;
}

@Tool({ name: 'waits', description: 'A class tool that stops as its signal says', args: WaitArgs })
class Waits {
  async execute(_args: WaitArgs, ctx: { signal: AbortSignal }): Promise<string> {
    started.push('waits');
    await aborted(ctx.signal);
    ctx.signal.throwIfAborted();
    return 'never';
  }
}

test("a tool that throws its cancelled signal's reason is not reported as a panic; a fault after it is", async () => {
  const reported: string[] = [];
  const server = serveTools([stops, breaks, toolFromInstance(new Waits())], {
    onError: (message) => reported.push(message),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    for (const name of ['waits', 'stops', 'breaks']) {
      const controller = new AbortController();
      const call = client
        .callTool({ name, arguments: { why: 'test' } }, { signal: controller.signal })
        .catch((error: unknown) => error);
      await until(() => started.includes(name), `${name} to start`);
      // The SDK's client sends notifications/cancelled with the reason as a string.
      controller.abort('the user pressed Escape');
      expect(await call).toBeInstanceOf(Error);
    }
    // The TypeError is the tool's own fault: reported once, as a panic.
    await until(() => reported.length > 0, 'the fault to be reported');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reported).toEqual(['tool "breaks" panicked: TypeError: cleanup read undefined']);
  } finally {
    await client.close();
    await server.close();
  }
});
