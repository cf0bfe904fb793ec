import { AgentToolError } from '../../core';
import { refusalText } from './errors';
import { clientSdk } from './sdk-modules';

/**
 * A request an HTTP server refused for now, with 429 (too many requests: the caller is
 * past its share) or 503 (the server is at a limit): the request did not run, and the
 * connection stands. Code `RATE_LIMITED`, as a spent budget of a `RateLimitInterceptor`:
 * the server is busy, not gone, so nothing reconnects for it; the message says what the
 * server said and when to try again, e.g. `mcp: call "ask": the server refused the call
 * (HTTP 429): Too Many Requests; it is busy: try again in 2 s (its Retry-After)`.
 */
export class ServerBusyError extends AgentToolError {
  /** The HTTP status the server refused the request with. */
  readonly status: 429 | 503;
  /** Whole seconds the server asked to wait (its `Retry-After`), when it said. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    status: 429 | 503,
    retryAfter: number | undefined,
    options?: { cause?: unknown },
  ) {
    super('RATE_LIMITED', message, options);
    this.name = 'ServerBusyError';
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/**
 * How a refusal's `Retry-After` travels from the fetch to the error: the SDK's HTTP
 * error keeps the status text and the body, not the headers.
 */
const RETRY_AFTER_NOTE = / \(Retry-After: (\d+) s\)$/;

/** The longest wait a `Retry-After` is taken at (a day): past it, "later" says as much. */
const MAX_RETRY_AFTER_S = 86_400;

/**
 * The status text of `response`, noting its `Retry-After` (as whole seconds) when it
 * is a 429 or a 503 that has one; its own status text otherwise.
 */
export function notingRetryAfter(response: Response): string {
  if (response.status !== 429 && response.status !== 503) return response.statusText;
  const seconds = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
  return seconds === undefined
    ? response.statusText
    : `${response.statusText} (Retry-After: ${seconds} s)`;
}

/** `Retry-After` as whole seconds from `now` (delay-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.max(0, Math.ceil((at - now) / 1000));
  }
  return seconds <= MAX_RETRY_AFTER_S ? seconds : undefined;
}

/**
 * The error for a request the server refused with HTTP 429 or 503 (see
 * {@link ServerBusyError}), or undefined for any other failure. `what` names the request
 * in the message: `call`, `request`.
 */
export function refusalOf(
  where: string,
  error: unknown,
  what: string,
): ServerBusyError | undefined {
  const sdk = clientSdk();
  if (!(error instanceof sdk.SdkHttpError) || (error.status !== 429 && error.status !== 503)) {
    return undefined;
  }
  const data = (error as { data?: unknown }).data;
  const statusText =
    typeof data === 'object' && data !== null
      ? (data as { statusText?: unknown }).statusText
      : undefined;
  const noted = typeof statusText === 'string' ? RETRY_AFTER_NOTE.exec(statusText)?.[1] : undefined;
  const retryAfter = noted === undefined ? undefined : Number(noted);
  const said = refusalText(error).replace(/^Error POSTing to endpoint(?: \(HTTP \d+\))?: /, '');
  const when =
    retryAfter === undefined ? 'try again later' : `try again in ${retryAfter} s (its Retry-After)`;
  return new ServerBusyError(
    `${where}: the server refused the ${what} (HTTP ${error.status}): ${said}; it is busy: ${when}`,
    error.status,
    retryAfter,
    { cause: error },
  );
}
