// node:fs's `promises`, read where a file is opened: node:fs/promises loads eight modules
// of Node's (1.3 ms) that a start without a record file does not need.
import { promises as fsPromises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { type RecordFunc } from './context';
import { type ToolRecord } from './records';

/** Where a record was written from: while the call ran, or from its final details. */
export type RecordMoment = 'during' | 'end';

/** What a line says besides the record itself. */
export interface RecordMeta {
  /** The call's id. */
  readonly call: string;
  /** The tool's name, when known. */
  readonly tool?: string | undefined;
  readonly moment: RecordMoment;
}

/**
 * The embedded default recorder. Appends records to a file as JSON lines, durably: each line is written and flushed to
 * the disk (fsync) before {@link RecordFile.write} settles, so a record a tool wrote
 * survives a crash right after. A line is
 * `{"time":…,"call":…,"tool":…,"moment":"during"|"end","ns":…,"data":<the record's JSON>}`
 * with the data's JSON kept as it was written. Writes are serialised; the file is opened
 * for appending, so several processes may share it.
 */
export class RecordFile {
  readonly #path: string;
  #handle: Promise<FileHandle> | undefined;
  #queue: Promise<void> = Promise.resolve();
  #count = 0;

  constructor(path: string) {
    this.#path = path;
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  /** How many records were written. */
  get count(): number {
    return this.#count;
  }

  /** Opens (and so creates) the file now rather than at the first record. */
  async open(): Promise<void> {
    await this.#opened();
  }

  #opened(): Promise<FileHandle> {
    if (this.#handle === undefined) {
      const opening = fsPromises.open(this.#path, 'a');
      this.#handle = opening;
      // A failed open is reported to the writer and tried again by the next one.
      opening.catch(() => {
        if (this.#handle === opening) this.#handle = undefined;
      });
    }
    return this.#handle;
  }

  /** Appends one record and resolves once it is on the disk. */
  write(record: ToolRecord, meta: RecordMeta): Promise<void> {
    const line = `${recordLine(record, meta)}\n`;
    const written = this.#queue.then(async () => {
      const handle = await this.#opened();
      await handle.write(line);
      await handle.sync();
      this.#count++;
    });
    this.#queue = written.catch(() => undefined);
    return written;
  }

  /** A recorder for a context: each record a tool writes is appended before it returns. */
  recorder(toolOf: (callId: string) => string | undefined = () => undefined): RecordFunc {
    return (record, ctx) =>
      this.write(record, {
        call: ctx.call.id,
        tool: toolOf(ctx.call.id),
        moment: 'during',
      });
  }

  /** Waits for pending writes and closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle !== undefined) await (await handle.catch(() => undefined))?.close();
  }
}

/** One JSON line for a record; the data's JSON is kept as written, on one line. */
export function recordLine(record: ToolRecord, meta: RecordMeta): string {
  // JSON text holds raw line breaks only as whitespace between tokens: dropping them
  // keeps its meaning and the line a line.
  const data = record.data === '' ? 'null' : record.data.replace(/[\r\n]/g, '');
  const head = {
    time: new Date().toISOString(),
    call: meta.call,
    // JSON.stringify leaves out a tool that is undefined.
    tool: meta.tool,
    moment: meta.moment,
    ns: record.ns,
  };
  return `${JSON.stringify(head).slice(0, -1)},"data":${data}}`;
}
