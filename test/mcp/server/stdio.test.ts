import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { newTool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { deferred, firstText } from './helpers';

/** The client end of a stdio pipe pair, in process: what a parent process would hold. */
class PipeClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Every line the server wrote to its stdout. */
  readonly lines: string[] = [];
  readonly #buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.lines.push(...chunk.toString().split('\n').filter(Boolean));
      this.#buffer.append(chunk);
      for (let m = this.#buffer.readMessage(); m !== null; m = this.#buffer.readMessage()) {
        this.onmessage?.(m);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

test('serves over stdio: stdout carries only protocol lines, the stack goes to stderr, stdin end ends the session', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const errors: string[] = [];
  const stderr = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args.map(String).join(' '));
  });
  const ended = deferred();
  const server = serveTools(
    [
      newTool({ name: 'hello', description: 'Greets', execute: () => ({ output: 'hi' }) }),
      newTool({
        name: 'crash',
        description: 'A programming fault',
        execute: () => {
          throw new RangeError('index out of range');
        },
      }),
    ],
    { onSession: (session) => session.onClose(() => ended.resolve()) },
  );
  try {
    await server.serveStdio({ stdin, stdout });
    const transport = new PipeClientTransport(stdin, stdout);
    const client = new Client({ name: 'pipe', version: '1' });
    await client.connect(transport);
    expect(firstText(await client.callTool({ name: 'hello' }))).toBe('hi');
    const crash = await client.callTool({ name: 'crash' });
    expect(crash).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'tool "crash" panicked: RangeError: index out of range' }],
    });
    expect(errors.join('\n')).toContain('tool "crash" panicked');
    expect(errors.join('\n')).toContain('    at ');
    for (const line of transport.lines) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(transport.lines.join('\n')).not.toContain('    at ');
    await transport.close();
    await ended.promise;
    expect(server.sessions).toHaveLength(0);
  } finally {
    stderr.mockRestore();
    await server.close();
  }
});
