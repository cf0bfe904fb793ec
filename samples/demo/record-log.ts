import { type FileHandle, open } from 'node:fs/promises';
import { type RecordFunc, type ToolRecord } from 'agenttool';

/**
 * A recorder that appends each record to a JSON-lines file and flushes it to the disk
 * (fsync) before it returns, as the contract asks of a recorder: a record a tool wrote
 * survives a crash right after. Lines read
 * `{"time":…,"call":…,"tool":…,"moment":"during"|"end","ns":…,"data":<the record's JSON>}`,
 * the same shape `agenttool serve --record` and `agenttool call --record` write, so the
 * server and the client of the demo can share one file (it is opened for appending).
 */
export class RecordLog {
  readonly #path: string;
  #handle: Promise<FileHandle> | undefined;
  #queue: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  /** Opens (and so creates) the file now rather than at the first record. */
  async open(): Promise<void> {
    await (this.#handle ??= open(this.#path, 'a'));
  }

  /** Appends one record; resolves once it is on the disk. Writes are serialised. */
  append(
    record: ToolRecord,
    meta: { call: string; tool?: string; moment: 'during' | 'end' },
  ): Promise<void> {
    const head = JSON.stringify({ time: new Date().toISOString(), ...meta, ns: record.ns });
    // Raw line breaks in JSON text are whitespace between tokens: dropping them keeps the line a line.
    const data = record.data === '' ? 'null' : record.data.replace(/[\r\n]/g, '');
    const line = `${head.slice(0, -1)},"data":${data}}\n`;
    const written = this.#queue.then(async () => {
      const handle = await (this.#handle ??= open(this.#path, 'a'));
      await handle.write(line);
      await handle.sync();
    });
    this.#queue = written.catch(() => undefined);
    return written;
  }

  /** A recorder for an executor: names the call and, through `toolOf`, its tool. */
  recorder(toolOf: (callId: string) => string | undefined): RecordFunc {
    return (record, ctx) => {
      const tool = toolOf(ctx.call.id);
      return this.append(record, {
        call: ctx.call.id,
        ...(tool === undefined ? {} : { tool }),
        moment: 'during',
      });
    };
  }

  async close(): Promise<void> {
    await this.#queue;
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle !== undefined) await (await handle).close();
  }
}
