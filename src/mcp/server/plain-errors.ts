/** Errors {@link plainError} made: a client's doing, which a client can repeat at will. */
const plain = new WeakSet<Error>();

/**
 * An error for a condition the server met and handled (a message too large, a client's
 * malformed request), not a fault in its code: reported without the stack, which would
 * only say where, and which a client could make the server write once per request.
 */
export function plainError(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  plain.add(error);
  return error;
}

/**
 * The JSON-RPC codes of the SDK's protocol errors that refuse what a client sent: an
 * invalid request or params, and 2026-07-28's header mismatch, missing capability and
 * unsupported protocol version.
 */
const CLIENT_ERROR_CODES: ReadonlySet<unknown> = new Set([-32600, -32602, -32020, -32021, -32022]);

/**
 * `error` as reported: a request the SDK refused for what its client sent ("Rejected
 * inbound request (<why>): ...", or a protocol error of a client's making, such as an
 * unsupported protocol version; the client was answered saying so) as a
 * {@link plainError}, anything else as it is.
 */
export function withoutClientStack(error: Error): Error {
  const clients =
    error.message.startsWith('Rejected inbound request (') ||
    (error.name === 'ProtocolError' && CLIENT_ERROR_CODES.has((error as { code?: unknown }).code));
  return clients ? plainError(error.message) : error;
}

/** How many reports of clients' doing each place writes in a window, at most. */
export const CLIENT_REPORTS_PER_WINDOW = 10;

/** The window of {@link CLIENT_REPORTS_PER_WINDOW}, in milliseconds. */
export const CLIENT_REPORT_WINDOW_MS = 60_000;

/** A reporter that throttles clients' reports, with what ends its open windows. */
export interface ThrottledReporter {
  (message: string, error: unknown): void;
  /**
   * Ends every open window now: writes the line of how many each left out, and stops
   * its timer. The server calls it when it closes, so that the count is neither lost
   * with the process nor written after the server has gone.
   */
  readonly flush: () => void;
}

/**
 * `report`, writing at most {@link CLIENT_REPORTS_PER_WINDOW} of the
 * {@link plainError}s of one place (its `message`, `mcp: http`) per
 * {@link CLIENT_REPORT_WINDOW_MS}: a client that sends what the server refuses as fast
 * as it can would otherwise fill the log at its rate. Past the count, the window's end
 * (or {@link ThrottledReporter.flush}) writes one line saying how many were left out.
 * The server's own faults are all written.
 */
export function throttlingClientReports(
  report: (message: string, error: unknown) => void,
  perWindow = CLIENT_REPORTS_PER_WINDOW,
  windowMs = CLIENT_REPORT_WINDOW_MS,
): ThrottledReporter {
  interface Window {
    written: number;
    left: number;
    timer: ReturnType<typeof setTimeout>;
  }
  const windows = new Map<string, Window>();
  const end = (message: string, window: Window): void => {
    clearTimeout(window.timer);
    windows.delete(message);
    if (window.left > 0) {
      report(
        message,
        plainError(
          `${window.left} more like this in the last ${windowMs / 1000} s were not reported (at most ${perWindow} are)`,
        ),
      );
    }
  };
  const throttled = (message: string, error: unknown): void => {
    if (!(error instanceof Error && plain.has(error))) {
      report(message, error);
      return;
    }
    let window = windows.get(message);
    if (window === undefined) {
      const timer = setTimeout(() => end(message, opened), windowMs).unref();
      const opened: Window = { written: 0, left: 0, timer };
      window = opened;
      windows.set(message, window);
    }
    if (window.written < perWindow) {
      window.written++;
      report(message, error);
    } else {
      window.left++;
    }
  };
  return Object.assign(throttled, {
    flush: () => {
      for (const [message, window] of [...windows]) end(message, window);
    },
  });
}
