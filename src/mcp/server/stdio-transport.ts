import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type * as ServerStdio from '@modelcontextprotocol/server/stdio';
import { boundedLines, DEFAULT_STDIO_MESSAGE_BYTES, scanTopLevel } from '../line-bound';
import type { StdioServeOptions } from './server-options';
import { plainError } from './plain-errors';
import { tellUnreadableLines } from './stdio-reader';
import { TOO_DEEP_MESSAGE } from '../message-depth';
import { answersReadOf, boundedWrites, DEFAULT_STDIO_SENT_MESSAGE_BYTES } from './stdio-writes';

/**
 * The SDK's stdio server transport over `io`'s streams, made to keep a connection going
 * where the SDK's alone would end it or leave a client waiting:
 * - a message read over `maxMessageBytes` is not read: a request's id is answered with
 *   a JSON-RPC error (-32000) that gives both sizes (the SDK's closes the connection),
 *   and an answer of the client fails the request of ours it answers with that error;
 * - a JSON-RPC batch is answered one message per request (the SDK's drops it);
 * - a line that is not JSON is answered with a parse error (-32700) for the id it seems
 *   to carry, or null (the SDK's skips it in silence), unless it seems an answer (an id
 *   and no method), which fails our request instead; JSON that is no request is
 *   answered with an invalid-request error (-32600; the SDK's only reports it);
 * - a message written over `maxSentMessageBytes` is replaced (a client closes the
 *   connection on a message longer than it buffers: the SDK's client at 10 MiB).
 * Each is reported. `release` lets go of the input once the connection is over;
 * `answersRead` is the connection's session's `whenAnswersRead`. Bad limits throw here.
 */
export function boundedStdioTransport(
  stdio: typeof ServerStdio,
  io: StdioServeOptions,
  report: (error: unknown) => void,
): {
  readonly transport: ServerStdio.StdioServerTransport;
  readonly release: () => void;
  readonly answersRead: (signal?: AbortSignal) => Promise<void> | undefined;
} {
  const limit = io.maxMessageBytes ?? DEFAULT_STDIO_MESSAGE_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(
      `serveStdio: maxMessageBytes must be a positive whole number of bytes, got ${String(limit)}`,
    );
  }
  const sentLimit = io.maxSentMessageBytes ?? DEFAULT_STDIO_SENT_MESSAGE_BYTES;
  if (!Number.isSafeInteger(sentLimit) || sentLimit < 1024) {
    throw new TypeError(
      `serveStdio: maxSentMessageBytes must be a whole number of bytes of at least 1024, got ${String(sentLimit)}`,
    );
  }
  const answer = (message: Record<string, unknown>): void => {
    transport.send(message as unknown as JSONRPCMessage).catch(report);
  };
  // An answer of the client that cannot be read fails the request of ours it answers,
  // at once, as if the client had answered with that error: the request would otherwise
  // wait for its timeout. Never sent back: the client's ids are not ours.
  const failOwnRequest = (id: string | number, message: string): void => {
    transport.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32000, message } });
  };
  const input = boundedLines(io.stdin ?? process.stdin, limit, (oversized) => {
    const message = `Message too large: the limit over stdio is ${limit} bytes, and this one had ${oversized.bytes}`;
    report(plainError(message));
    // Read from the whole message: its id and method may sit anywhere among its members.
    const { id, request } = oversized.topLevel;
    if (id === undefined) return;
    if (request) answer({ jsonrpc: '2.0', id, error: { code: -32000, message } });
    else failOwnRequest(id, `the client's answer was too large to read: ${message}`);
  });
  const stdout = io.stdout ?? process.stdout;
  // The SDK's transport adds an 'error' and a 'drain' listener for each message its
  // client has not read yet: many answers waiting are not a leak, and Node's warning
  // past ten would say they were. The stream's own limit is put back at the end.
  const maxListeners = stdout.getMaxListeners();
  stdout.setMaxListeners(0);
  const output = boundedWrites(stdout, sentLimit, (oversized) => {
    const instead =
      oversized.outcome === 'not sent' ? 'it was not sent' : `a ${oversized.outcome} went instead`;
    report(
      plainError(
        `${oversized.which} was ${oversized.bytes} bytes, over the limit of ${sentLimit} bytes for a message sent over stdio: ${instead}`,
      ),
    );
  });
  // The lines that reach the SDK's read buffer are within the limit (one line end more
  // where a line was cut), so its own bound, which ends the connection, is never met.
  const transport = new stdio.StdioServerTransport(input.lines, output, {
    maxBufferSize: limit + 1024,
  });
  tellUnreadableLines(transport, (unreadable) => {
    if (unreadable.kind === 'parse') {
      const message = `Parse error: the message is not JSON (${unreadable.error.message})`;
      report(plainError(message));
      const { id, request } = scanTopLevel(unreadable.line);
      if (request || id === undefined)
        answer({ jsonrpc: '2.0', id: id ?? null, error: { code: -32700, message } });
      else failOwnRequest(id, `the client's answer could not be read: ${message}`);
      return;
    }
    // JSON that is no JSON-RPC message, or one nested too deep to be handled: a request's
    // sender is told (with its id, else null, as JSON-RPC has it); a malformed response
    // is only reported, one too deep fails the request of ours it answers. The report is
    // a line naming the message, not the schema's error (a hundred lines per message).
    const refusal =
      unreadable.kind === 'deep'
        ? TOO_DEEP_MESSAGE
        : unreadable.why === undefined
          ? INVALID_REQUEST
          : `Invalid request: ${unreadable.why}`;
    if (unreadable.response) {
      const what = unreadable.kind === 'deep' ? TOO_DEEP_MESSAGE : INVALID_RESPONSE;
      report(plainError(`${what}: ${excerpt(unreadable.line)}`));
      if (unreadable.kind === 'deep' && unreadable.id !== undefined) {
        failOwnRequest(unreadable.id, `the client's answer could not be read: ${what}`);
      }
      return;
    }
    report(plainError(`${refusal}: ${excerpt(unreadable.line)}`));
    answer({
      jsonrpc: '2.0',
      id: unreadable.id ?? null,
      error: { code: -32600, message: refusal },
    });
  });
  const release = (): void => {
    input.release();
    stdout.setMaxListeners(maxListeners);
  };
  return { transport, release, answersRead: answersReadOf(stdout) };
}

const INVALID_REQUEST =
  'Invalid request: not a JSON-RPC 2.0 request or notification (an object with "jsonrpc": "2.0", a string "method", and an "id" for a request)';

const INVALID_RESPONSE = 'Invalid response: not a JSON-RPC 2.0 result or error';

/** How much of a refused line a report quotes. */
const EXCERPT_CHARS = 200;

/** The start of `line`, quoted, for a report. */
function excerpt(line: string): string {
  const cut = line.length > EXCERPT_CHARS;
  return `${JSON.stringify(cut ? line.slice(0, EXCERPT_CHARS) : line)}${cut ? ` (${line.length} characters in all)` : ''}`;
}
