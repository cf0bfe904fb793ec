/**
 * `read_file` over stdio to a client slower to read than the server is to answer: the
 * reads wait for the client to catch up, so that the answers the server holds unwritten
 * stay bounded (300 parallel 4 MiB reads took a server to 2.6 GB before), and every
 * answer still arrives, whole and in its place.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ReadBuffer } from '@modelcontextprotocol/client';
import { ToolApp } from 'agenttool/di';
import { serveTools, STDIO_UNREAD_ANSWER_BYTES } from 'agenttool/mcp';
import { FilesModule, READ_BYTES_AT_ONCE } from 'agenttool/workspace';

const MiB = 1024 * 1024;
const READS = 100;

/** A stdout whose reader reads nothing until `resume`, then everything. */
class SlowReader extends Writable {
  readonly #parked: (() => void)[] = [];
  #reading = false;
  readonly received = new ReadBuffer();
  readonly messages: Record<string, unknown>[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    const take = (): void => {
      this.received.append(chunk);
      for (let message = this.received.readMessage(); message !== null;) {
        this.messages.push(message);
        message = this.received.readMessage();
      }
      done();
    };
    if (this.#reading) take();
    else this.#parked.push(take);
  }

  resume(): void {
    this.#reading = true;
    for (const take of this.#parked.splice(0)) take();
  }
}

let root: string;
let app: ToolApp;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'unread-answers-'));
  app = await ToolApp.create(FilesModule.forRoot(root));
});

afterEach(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

/** Waits until `value()` has not changed for `quiet` looks 20 ms apart (at most 30 s in all). */
async function settled(value: () => number, quiet = 25): Promise<number> {
  let last = value();
  let unchanged = 0;
  for (let look = 0; look < 1500 && unchanged < quiet; look++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = value();
    unchanged = now === last ? unchanged + 1 : 0;
    last = now;
  }
  return last;
}

it.each(['2025-11-25', '2026-07-28'] as const)(
  'a %s client reading nothing holds reads back at the bound, and gets every answer once it reads (but the cancelled one)',
  async (version) => {
    for (let n = 0; n < READS; n++) {
      writeFileSync(join(root, `f${n}.txt`), `${n}:`.padEnd(MiB, 'a'));
    }
    const stdin = new PassThrough();
    const stdout = new SlowReader();
    const server = serveTools(app);
    const connection = await server.serveStdio({ stdin, stdout });
    const send = (message: Record<string, unknown>): void => {
      stdin.write(`${JSON.stringify(message)}\n`);
    };
    const meta =
      version === '2026-07-28'
        ? {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': version,
              'io.modelcontextprotocol/clientInfo': { name: 'slow', version: '0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }
        : {};
    if (version === '2025-11-25') {
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: 'slow', version: '0' },
        },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    for (let n = 0; n < READS; n++) {
      send({
        jsonrpc: '2.0',
        id: n + 1,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: `f${n}.txt`, max_bytes: MiB }, ...meta },
      });
    }
    const held = await settled(() => stdout.writableLength);
    // The client reads nothing: the server has answered until it held the bound, and the
    // reads that had their turn then (the process's read budget), no more.
    expect(held).toBeGreaterThan(STDIO_UNREAD_ANSWER_BYTES);
    expect(held).toBeLessThanOrEqual(STDIO_UNREAD_ANSWER_BYTES + READ_BYTES_AT_ONCE + 2 * MiB);
    expect(held).toBeLessThan(READS * MiB);
    // A call cancelled while it waits leaves without an answer (as a cancelled call does).
    send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: READS, reason: 'not needed', ...meta },
    });
    stdout.resume();
    const answered = (): number => stdout.messages.filter((m) => m['id'] !== 0).length;
    await settled(answered, 5);
    for (let look = 0; look < 1500 && answered() < READS - 1; look++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answers = stdout.messages.filter((m) => m['id'] !== 0);
    expect(answers.map((answer) => answer['id'])).toEqual(expect.not.arrayContaining([READS]));
    expect(answers).toHaveLength(READS - 1);
    for (const answer of answers) {
      const n = (answer['id'] as number) - 1;
      const result = answer['result'] as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).not.toBe(true);
      const text = result.content[0]?.text ?? '';
      expect(text.length).toBe(MiB);
      expect(text.startsWith(`${n}:a`)).toBe(true);
    }
    await connection.close();
    await server.close();
  },
);
