import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { CUT_LINE_END } from '../line-bound';

const NEWLINE = 0x0a;

/**
 * Makes a stdio server transport of the SDK's tell of each line that is not JSON, rather
 * than skip it: its reader drops such a line in silence, and a client whose request was
 * malformed would wait for an answer forever. Blank lines and the fragments of lines cut
 * for being too long (answered already, see `LineBound`) are skipped as before. Each
 * line is read as the SDK's reader reads it (`deserializeMessage`); a transport whose
 * reader is not where this looks keeps its own.
 */
export function tellUnreadableLines(
  transport: object,
  onUnreadable: (line: string, error: SyntaxError) => void,
): void {
  const holder = transport as { _readBuffer?: unknown };
  const own = holder._readBuffer as { append?: unknown; readMessage?: unknown } | undefined;
  if (typeof own?.append !== 'function' || typeof own.readMessage !== 'function') return;
  holder._readBuffer = new TellingReadBuffer(onUnreadable);
}

class TellingReadBuffer {
  /** What came and was not read yet, in order; a line starts at its beginning. */
  #pending: Buffer[] = [];
  /** True when what is pending holds a newline. */
  #complete = false;

  constructor(private readonly onUnreadable: (line: string, error: SyntaxError) => void) {}

  append(chunk: Buffer): void {
    this.#pending.push(chunk);
    if (chunk.includes(NEWLINE)) this.#complete = true;
  }

  readMessage(): JSONRPCMessage | null {
    while (this.#complete) {
      const all =
        this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
      const end = all.indexOf(NEWLINE);
      if (end === -1) {
        this.#pending = [all];
        this.#complete = false;
        return null;
      }
      const line = all.toString('utf8', 0, end).replace(/\r$/, '');
      const rest = all.subarray(end + 1);
      this.#pending = rest.length > 0 ? [rest] : [];
      this.#complete = rest.includes(NEWLINE);
      if (line.trim() === '' || line.endsWith(CUT_LINE_END)) continue;
      try {
        return deserializeMessage(line);
      } catch (error) {
        // Not JSON: told, then the next line. Anything else (JSON that is no message)
        // goes to the transport's error handler, as the SDK's reader has it.
        if (!(error instanceof SyntaxError)) throw error;
        this.onUnreadable(line, error);
      }
    }
    return null;
  }

  clear(): void {
    this.#pending = [];
    this.#complete = false;
  }
}
