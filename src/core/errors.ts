import { types } from 'node:util';
import { type ClientFeature } from './client-features';
import { goQuote } from './quote';

/**
 * The codes of {@link AgentToolError}. Each says what happened, so a caller can branch
 * on `error.code` rather than on message text.
 *
 * - `INVALID_TOOL`, `INVALID_TOOL_SET`, `INVALID_SCHEMA`, `INVALID_DEFINITION`,
 *   `INVALID_DECORATOR`, `INVALID_MODULE`, `MISSING_PROVIDER`, `CIRCULAR_DEPENDENCY`:
 *   something given to agenttool cannot be used, found before anything runs;
 * - `INVALID_ARGUMENTS`, `INVALID_RECORD`, `INVALID_OUTPUT`: a value met at run time
 *   does not fit (a call's arguments, a record, a result);
 * - `INVALID_OPTIONS`: options given to a function are wrong;
 * - `NO_TOOL`: a call names no tool; `TOOL_FAILED`: a tool ran and failed (a remote
 *   tool's error result); `PANIC`: a tool failed by a programming fault;
 * - `PROVIDER_FAILED`: a provider's constructor or factory threw while an app or a
 *   session built it; `HOOK_FAILED`: a lifecycle hook (`onModuleInit`, ...) threw;
 *   `CLOSE_FAILED`: closing something failed; `CLOSED`: the app or session is closed;
 *   `SESSION_SCOPED`: a session-scoped provider was asked for outside a session;
 * - `CANCELLED`: a call, a batch or an app's start was cancelled; `TIMEOUT`: an app's
 *   start did not finish within its `timeoutMs`, or a call within a `TimeoutInterceptor`'s
 *   time; `ON_START`: a batch's onStart failed;
 * - `RATE_LIMITED`: a caller spent its budget of a tool (`RateLimitInterceptor`), an
 *   MCP server refused a request for now with HTTP 429 or 503 (`ServerBusyError`), or
 *   as many calls as an app's `maxQueuedCalls` wait for one session's resource already;
 *   `RESULT_TOO_LARGE`: a result was over a `ResultSizeInterceptor`'s limit;
 * - `CONNECTION`, `PROTOCOL`: talking to another process failed;
 * - `INVALID_TOKEN`: a bearer token was refused (missing, expired, not for this
 *   server, badly signed);
 * - `MISSING_PEER`: an optional entry (`agenttool/nest`, ...) needs a framework package
 *   the app has not installed;
 * - `MISSING_CAPABILITY`: a call asked its client for something the client does not
 *   offer (a question, its model, its roots; see {@link MissingCapabilityError});
 * - `INVALID_COMMAND`: the `agenttool` command line is wrong; `INTERNAL`: a fault in
 *   agenttool itself.
 */
export type AgentToolErrorCode =
  | 'INVALID_TOOL'
  | 'INVALID_TOOL_SET'
  | 'INVALID_RECORD'
  | 'INVALID_SCHEMA'
  | 'INVALID_DEFINITION'
  | 'INVALID_ARGUMENTS'
  | 'INVALID_OUTPUT'
  | 'INVALID_OPTIONS'
  | 'INVALID_DECORATOR'
  | 'INVALID_MODULE'
  | 'MISSING_PROVIDER'
  | 'CIRCULAR_DEPENDENCY'
  | 'NO_TOOL'
  | 'TOOL_FAILED'
  | 'PANIC'
  | 'PROVIDER_FAILED'
  | 'HOOK_FAILED'
  | 'CLOSE_FAILED'
  | 'CLOSED'
  | 'SESSION_SCOPED'
  | 'CANCELLED'
  | 'TIMEOUT'
  | 'RATE_LIMITED'
  | 'RESULT_TOO_LARGE'
  | 'ON_START'
  | 'CONNECTION'
  | 'PROTOCOL'
  | 'INVALID_COMMAND'
  | 'INVALID_TOKEN'
  | 'MISSING_PEER'
  | 'MISSING_CAPABILITY'
  | 'INTERNAL';

/**
 * The one error base of agenttool: every error agenttool raises is an `AgentToolError`
 * with a `code` saying what happened. Errors a tool throws are its own and pass through
 * unchanged, except a programming fault, which becomes a {@link PanicError}.
 */
export class AgentToolError extends Error {
  readonly code: AgentToolErrorCode;

  constructor(code: AgentToolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentToolError';
    this.code = code;
  }
}

/** One problem found validating arguments: where it is, and what is wrong. */
export interface ValidationProblem {
  /** Dotted with `[i]` for array elements (`tags[1]`, `nested.deep`); "" for the root. */
  readonly path: string;
  /** What is wrong, without the `invalid arguments:` prefix or the path. */
  readonly detail: string;
}

/**
 * Arguments that do not satisfy the tool's schema. The message is the contract's:
 * `invalid arguments: <msg>` at the root, `invalid arguments: <path>: <msg>` below it,
 * where the path is dotted with `[i]` for array elements (`tags[1]`, `nested.deep`).
 * The contract's validator reports the first problem only, as Go's does; a check that
 * finds several (class-validator over an arguments class) reports each after the
 * first, separated by `; `, and ends `; and <n> more` when it found more than it
 * reports: `invalid arguments: name: <msg>; tags[0]: <msg>; and 2 more`.
 */
export class ValidationError extends AgentToolError {
  /** Where the (first) problem is; "" for the arguments object itself. */
  readonly path: string;
  /** What is wrong there, without the `invalid arguments:` prefix or the path. */
  readonly detail: string;
  /** Every problem the message reports, in order: the first is `path` and `detail`. */
  readonly problems: readonly ValidationProblem[];
  /** How many problems were found beyond those the message reports (0 for most). */
  readonly unreported: number;

  constructor(
    path: string,
    detail: string,
    more: { readonly also?: readonly ValidationProblem[]; readonly unreported?: number } = {},
  ) {
    const problems = [{ path, detail }, ...(more.also ?? [])];
    const unreported = more.unreported ?? 0;
    const listed = problems.map((p) => (p.path === '' ? p.detail : `${p.path}: ${p.detail}`));
    if (unreported > 0) listed.push(`and ${unreported} more`);
    super('INVALID_ARGUMENTS', `invalid arguments: ${listed.join('; ')}`);
    this.name = 'ValidationError';
    this.path = path;
    this.detail = detail;
    this.problems = problems;
    this.unreported = unreported;
  }
}

/**
 * A call asked its client for something the client does not offer: to ask the user
 * (`elicitation`, or a question mode it did not offer), to use its model (`sampling`),
 * or to list its roots (`roots`). `capability` says which, and `mode` the elicitation
 * mode when the client offered elicitation but not that mode. A tool may catch it and do
 * without; uncaught, it fails the call, and an MCP 2026-07-28 server answers the request
 * with the protocol's MissingRequiredClientCapability error (-32021, HTTP 400) naming
 * the capability, as that revision requires.
 */
export class MissingCapabilityError extends AgentToolError {
  /** What the call asked for that the client does not offer. */
  readonly capability: ClientFeature;
  /** The elicitation mode (`form`, `url`) not offered, when the client offers the others. */
  readonly mode?: string;

  constructor(capability: ClientFeature, message: string, options: { mode?: string } = {}) {
    super('MISSING_CAPABILITY', message);
    this.name = 'MissingCapabilityError';
    this.capability = capability;
    if (options.mode !== undefined) this.mode = options.mode;
  }
}

/**
 * The panic equivalent: a tool failed by a programming fault (a `TypeError`,
 * `ReferenceError` or `RangeError`, or a thrown value that is not an `Error`). The
 * message is one line, `tool "<name>" panicked: <value>`; the original stack stays on
 * `stack` and `value` for the host and is never part of the message the model sees.
 */
export class PanicError extends AgentToolError {
  readonly tool: string;
  readonly value: unknown;

  constructor(tool: string, value: unknown) {
    super('PANIC', `tool ${goQuote(tool)} panicked: ${oneLine(describeThrown(value))}`);
    this.name = 'PanicError';
    this.tool = tool;
    this.value = value;
    if (value instanceof Error && value.stack !== undefined) {
      this.stack = `${this.name}: ${this.message}\n${value.stack}`;
    }
  }
}

/**
 * The error thrown for a job or call that was cancelled before or while it ran. `cause`
 * holds the abort reason; `callId`, when set, names the call that never ran.
 */
export class CancelledError extends AgentToolError {
  readonly callId?: string;

  constructor(message = 'cancelled', options?: { cause?: unknown; callId?: string }) {
    super('CANCELLED', message, options?.cause === undefined ? {} : { cause: options.cause });
    this.name = 'CancelledError';
    if (options?.callId !== undefined) this.callId = options.callId;
  }
}

/** True for a thrown value that is a programming fault rather than a tool's own error. */
export function isProgrammingFault(thrown: unknown): boolean {
  if (!(thrown instanceof Error)) return true;
  return (
    thrown instanceof TypeError || thrown instanceof ReferenceError || thrown instanceof RangeError
  );
}

/**
 * Turns whatever a tool threw into the error the contract names: a programming fault
 * becomes a {@link PanicError} for that tool; any other `Error` is returned as is.
 */
export function toolFailure(toolName: string, thrown: unknown): Error {
  if (thrown instanceof PanicError) return thrown;
  if (isProgrammingFault(thrown)) return new PanicError(toolName, thrown);
  return thrown as Error;
}

/** The text of an error as the model sees it after `Error: ` (the message alone). */
export function errorMessage(error: unknown): string {
  // An Error from another realm (a vm context, a worker) is not an instance of ours.
  if (error instanceof Error || types.isNativeError(error)) return error.message;
  return describeThrown(error);
}

function describeThrown(value: unknown): string {
  if (value instanceof Error) return String(value);
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // fall through to String()
  }
  // Symbols, functions and objects JSON cannot write: their own string form.
  try {
    return typeof value === 'symbol' || typeof value === 'function'
      ? value.toString()
      : Object.prototype.toString.call(value);
  } catch {
    return typeof value;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
