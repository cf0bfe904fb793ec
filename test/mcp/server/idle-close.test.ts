// An instance's close (every 2026-07-28 HTTP request's instance closes after its answer)
// makes the SDK's "connection closed" error without a stack trace, whose frames would be
// the SDK's close path alone and cost ~2% of a call; what runs after it (the close's
// listener, the open requests' abort listeners) makes errors with their stacks, and the
// process's limit of frames is as it was.
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { RequestFirstServer } from '../../../src/mcp/server/telemetry/request-first-server';

const frames = (error: unknown): number =>
  String((error as Error | undefined)?.stack ?? '')
    .split('\n')
    .filter((line) => line.trim().startsWith('at ')).length;

it('makes the close error without a stack and every other error with one', async () => {
  const limit = Error.stackTraceLimit;
  const server = new RequestFirstServer(
    { name: 'idle-close', version: '0' },
    { capabilities: { tools: {} } },
  );
  let entered!: (signal: AbortSignal) => void;
  const handlerSignal = new Promise<AbortSignal>((resolve) => (entered = resolve));
  let madeOnAbort: Error | undefined;
  server.setRequestHandler('tools/list', (_request, ctx) => {
    ctx.mcpReq.signal.addEventListener('abort', () => (madeOnAbort = new Error('on abort')));
    entered(ctx.mcpReq.signal);
    return new Promise(() => undefined);
  });
  let madeOnClose: Error | undefined;
  const onclose = (): void => {
    madeOnClose = new Error('on close');
  };
  server.onclose = onclose;
  const [client, side] = InMemoryTransport.createLinkedPair();
  const answers = new Map<number, () => void>();
  client.onmessage = (message) => answers.get(Number((message as { id?: unknown }).id))?.();
  await server.connect(side);
  await client.start();
  const send = (message: Record<string, unknown>) =>
    client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  const initialized = new Promise<void>((resolve) => answers.set(0, resolve));
  await send({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    },
  });
  await initialized;
  await send({ id: 1, method: 'tools/list' });
  const signal = await handlerSignal;

  await server.close();
  // The open request is told why, by the SDK's error: its message, no frames.
  expect(signal.aborted).toBe(true);
  expect((signal.reason as Error).message).toMatch(/Connection closed/);
  expect(frames(signal.reason)).toBe(0);
  // What ran after it made its errors with their stacks.
  expect(frames(madeOnClose)).toBeGreaterThan(0);
  expect(frames(madeOnAbort)).toBeGreaterThan(0);
  expect(Error.stackTraceLimit).toBe(limit);
  expect(server.onclose).toBe(onclose);
});
