import {
  type CallToolResult,
  ProtocolError,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import {
  type AskWithoutElicitor,
  type AuthInfo,
  type Call,
  CancelledError,
  createContextWithSignalSource,
  depthExceeded,
  depthExceededText,
  type Elicitor,
  errorMessage,
  goQuote,
  isResult,
  type JsonObject,
  MissingCapabilityError,
  PanicError,
  type RecordFunc,
  type Result,
  type RootsLister,
  runWithContext,
  type Sampler,
  type SignalSource,
  type Tool,
  toolFailure,
  toResult,
  ValidationError,
} from '../../../core';
import { type ArgumentsCheck } from '../../validation';
import { contentOf } from './content';
import { CallNotices, type NoticesSetup } from './call-notices';
import { type OutputCheck, structuredOf } from './output';
import { type ParamHeader } from './param-headers';
import { recordMeta } from './record-meta';
import { type ErrorReporter, type McpSession } from '../session';

/**
 * A tool as the server keeps it: the tool, its compiled arguments check, the check of
 * its structured results (when it declares an output schema), its definition, and the
 * arguments a 2026-07-28 client mirrors into HTTP headers.
 */
export interface ServedTool {
  readonly tool: Tool;
  readonly check: ArgumentsCheck;
  /**
   * True when the tool validates its own arguments and refuses exactly what `check`
   * would: it is not checked before it runs (one check per call, not two), and a
   * refusal of its arguments is phrased by `check` (the Go server's words).
   */
  readonly selfChecked: boolean;
  /**
   * For a self-checked tool whose schema carries class-validator's keywords (`minimum`,
   * ...): the check of the rest, which phrases its refusals; a refusal it would not make
   * is class-validator's, and keeps the tool's words (`invalid arguments: <field>:
   * <message>`). Absent: `check` phrases them.
   */
  readonly phrasing?: ArgumentsCheck | undefined;
  readonly output?: OutputCheck | undefined;
  readonly definition: McpTool;
  readonly paramHeaders: readonly ParamHeader[];
}

/**
 * What a call runs with besides its tool and arguments: with what its notices are made
 * ({@link NoticesSetup}: its route, progress budget and keepalive), and the rest.
 */
export interface CallSetup extends NoticesSetup {
  readonly session: McpSession;
  /** The verified caller, if any. */
  readonly auth: AuthInfo | undefined;
  /**
   * Where the call's signal comes from (an AbortController will do), read when the tool
   * first reads its signal.
   */
  readonly signalSource: SignalSource;
  readonly elicitor: Elicitor | undefined;
  readonly sampler?: Sampler | undefined;
  readonly rootsLister?: RootsLister | undefined;
  /** What `ctx.ask` does without an elicitor: `cancel` (2025 era), `refuse` (2026-07-28). */
  readonly askWithoutElicitor?: AskWithoutElicitor;
  readonly recorder: RecordFunc | undefined;
  readonly report: ErrorReporter;
}

/** A call that runs: its result, and a way to wait for what it has sent so far. */
export interface RunningCall {
  readonly result: Promise<CallToolResult>;
  /**
   * Resolves once every notification sent so far has gone out (or failed to);
   * undefined when none is pending (most calls send none: nothing to await).
   */
  flush(): Promise<void> | undefined;
  /**
   * Once the result is in: the capability the tool failed for want of (it threw the
   * {@link MissingCapabilityError} of an ask, sample or roots listing), if it did.
   */
  missing(): MissingCapabilityError | undefined;
  /**
   * Another request now carries the call (a 2026-07-28 call's next round): progress it
   * asks for is kept alive from now on.
   */
  rerouted(): void;
}

// Process-wide, as in the Go binding: call ids are `mcp_1`, `mcp_2`, …
let calls = 0;

/** The answer to a call of a tool the server does not serve. */
export function unknownTool(name: string): CallToolResult {
  return failure(`unknown tool ${goQuote(name)}`);
}

/**
 * The tool a call may run with, or the failure result when it cannot run: unknown tool
 * (or one the caller may not use: the same answer), invalid arguments, or a validator
 * that crashed (reported like a panic).
 */
export function admit(
  name: string,
  served: ServedTool | undefined,
  args: Record<string, unknown>,
  report: ErrorReporter,
): ServedTool | CallToolResult {
  if (served === undefined) return unknownTool(name);
  if (served.selfChecked) {
    // The tool's own check and the call's `args` text recurse: too deep is refused first.
    const opening = depthExceeded(args);
    return opening === undefined
      ? served
      : failure(`invalid arguments: not valid JSON: ${depthExceededText(opening)}`);
  }
  let invalid;
  try {
    invalid = served.check(args);
  } catch (thrown) {
    // A validator that crashes is a fault of ours, reported like a tool's panic.
    const error = toolFailure(served.tool.name, thrown);
    report(error.message, error);
    return failure(errorMessage(error));
  }
  return invalid === undefined ? served : failure(invalid.message);
}

/** The served check's words for arguments a self-checked tool refused; undefined if it passes them. */
function phrasedRefusal(served: ServedTool, args: Record<string, unknown>): string | undefined {
  try {
    return (served.phrasing ?? served.check)(args)?.message;
  } catch {
    return undefined;
  }
}

/** True for a tool {@link admit} let through, false for its failure result. */
export function isAdmitted(admitted: ServedTool | CallToolResult): admitted is ServedTool {
  return 'check' in admitted;
}

/**
 * Runs one `tools/call` that {@link admit} let through. Every failure a tool
 * can cause (a thrown error, a panic-equivalent) is an `isError` result whose one text
 * block is the message once, without an `Error:` prefix: the consumer's harness adds
 * it. A panic-equivalent's stack goes to the error reporter only.
 */
export function runCall(
  served: ServedTool,
  args: Record<string, unknown>,
  setup: CallSetup,
): RunningCall & Pick<ServedRun, 'answer'> {
  return new ServedRun(served, args, setup);
}

/**
 * One run of a served tool. Its answer is one promise on the tool's (see
 * {@link ServedRun.answer}): no async frame, and no closures beyond the call's progress
 * and log sinks.
 */
class ServedRun implements RunningCall {
  readonly #served: ServedTool;
  readonly #args: Record<string, unknown>;
  readonly #report: ErrorReporter;
  readonly #notices: CallNotices;
  readonly #signalSource: SignalSource;
  /** The tool's promise; undefined when it returned (or threw) at once. */
  readonly #pending: PromiseLike<unknown> | undefined;
  /** What the tool returned or threw at once. */
  readonly #returned: unknown;
  readonly #threw: boolean = false;
  #result: Promise<CallToolResult> | undefined;
  #answered = false;
  #missing: MissingCapabilityError | undefined;

  constructor(served: ServedTool, args: Record<string, unknown>, setup: CallSetup) {
    this.#served = served;
    this.#args = args;
    this.#report = setup.report;
    this.#signalSource = setup.signalSource;
    const notices = new CallNotices(setup);
    this.#notices = notices;
    const call = servedCall(`mcp_${++calls}`, args, notices.progress);
    const ctx = createContextWithSignalSource(
      {
        call,
        session: setup.session,
        elicitor: setup.elicitor,
        recorder: setup.recorder,
        log: notices.log,
        auth: setup.auth,
        sampler: setup.sampler,
        rootsLister: setup.rootsLister,
        askWithoutElicitor: setup.askWithoutElicitor,
      },
      setup.signalSource,
    );
    const tool = served.tool;
    let returned: unknown;
    try {
      returned = runWithContext(ctx, () => tool.execute(call, ctx));
    } catch (thrown) {
      this.#returned = thrown;
      this.#threw = true;
      return;
    }
    if (isThenable(returned)) this.#pending = returned;
    else this.#returned = returned;
  }

  get result(): Promise<CallToolResult> {
    return (this.#result ??= this.answer(
      (result) => result,
      (error) => Promise.reject(error as Error),
    ));
  }

  /**
   * The call's answer, made by `onResult` from its result, or by `onError` from the
   * error its request fails with (a ProtocolError the tool threw), in the turn the
   * tool's own promise settles: one promise per call on the tool's, not one per layer.
   * A run is answered once, by this or by {@link ServedRun.result}.
   */
  answer<T>(
    onResult: (result: CallToolResult) => T | PromiseLike<T>,
    onError: (error: unknown) => T | PromiseLike<T>,
  ): Promise<T> {
    // The outcome is made once: a panic is reported once.
    if (this.#answered) throw new Error('mcp: a served run is answered once');
    this.#answered = true;
    const pending = this.#pending;
    if (pending !== undefined) {
      return Promise.resolve(pending).then(
        (value) => onResult(this.#succeeded(value)),
        (thrown: unknown) => this.#failedThen(thrown, onResult, onError),
      );
    }
    const answer = this.#threw
      ? this.#failedThen(this.#returned, onResult, onError)
      : onResult(this.#succeeded(this.#returned));
    return Promise.resolve(answer);
  }

  flush(): Promise<void> | undefined {
    return this.#notices.flush();
  }

  missing(): MissingCapabilityError | undefined {
    return this.#missing;
  }

  rerouted(): void {
    this.#notices.rerouted();
  }

  #succeeded(returned: unknown): CallToolResult {
    try {
      const answer = successOf(this.#served, isResult(returned) ? returned : toResult(returned));
      this.#notices.finish();
      return answer;
    } catch (thrown) {
      // Converting what the tool returned failed (e.g. JSON cannot encode it).
      return this.#failed(thrown);
    }
  }

  #failedThen<T>(
    thrown: unknown,
    onResult: (result: CallToolResult) => T | PromiseLike<T>,
    onError: (error: unknown) => T | PromiseLike<T>,
  ): T | PromiseLike<T> {
    let answer: CallToolResult;
    try {
      answer = this.#failed(thrown);
    } catch (error) {
      return onError(error);
    }
    return onResult(answer);
  }

  #failed(thrown: unknown): CallToolResult {
    this.#notices.finish();
    // The SDK's ProtocolError is the one way a tool fails its request with a JSON-RPC
    // error of its choosing (a task then ends `failed`) rather than an isError result.
    if (ProtocolError.isInstance(thrown)) throw thrown;
    const served = this.#served;
    let error = toolFailure(served.tool.name, thrown);
    if (error instanceof PanicError) {
      // A tool that stops on its call's cancellation by throwing the signal's reason
      // (`ctx.signal.throwIfAborted()`; a client's `notifications/cancelled` gives a
      // string) was cancelled, not broken: nothing to report.
      const signal = this.#signalSource.signal;
      if (signal.aborted && error.value === signal.reason) {
        error = new CancelledError(errorMessage(signal.reason), { cause: signal.reason });
      } else this.#report(error.message, error);
    }
    if (error instanceof MissingCapabilityError) this.#missing = error;
    if (served.selfChecked && error instanceof ValidationError) {
      // The tool refused its arguments where the served check would have: in its words,
      // unless the refusal is the tool's own (class-validator), which the check passes.
      const phrased = phrasedRefusal(served, this.#args);
      if (phrased !== undefined) return failure(phrased);
    }
    return failure(errorMessage(error), (error as { details?: unknown }).details);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * The call a served tool receives. Flat arguments (every member a string, a finite
 * number, a boolean or null) are handed over decoded as `value`, a frozen copy, with
 * `args` written from it on first read: nothing can change them, so `JSON.parse(args)`
 * equals `value` whenever it is read, and a tool that uses `value` parses nothing.
 * Other arguments are written at once and not handed over decoded, since an arguments
 * instance may share their nested objects and a tool may change those.
 */
function servedCall(
  id: string,
  value: Record<string, unknown>,
  onUpdate: (update: Result) => void,
): Call {
  const flat = flatCopy(value);
  if (flat === undefined) return { id, args: JSON.stringify(value), onUpdate };
  const call = Object.defineProperty({ id }, 'args', ARGS_FROM_VALUE) as DecodedCall;
  call.value = flat;
  call.onUpdate = onUpdate;
  return call;
}

type DecodedCall = { -readonly [K in 'value' | 'onUpdate']?: Call[K] } & Pick<Call, 'id' | 'args'>;

// `args` of a call handed over decoded: an own, enumerable getter (a spread copies the
// text) shared by every call, written from the frozen `value` on first read. A getter in
// an object literal would cost a closure and a runtime call per call.
const texts = new WeakMap<object, string>();
const ARGS_FROM_VALUE: PropertyDescriptor = {
  get(this: { readonly value: JsonObject }): string {
    let text = texts.get(this);
    if (text === undefined) {
      text = JSON.stringify(this.value);
      texts.set(this, text);
    }
    return text;
  },
  enumerable: true,
  configurable: true,
};

function flatCopy(value: Record<string, unknown>): JsonObject | undefined {
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) {
    // Assigning `__proto__` would set the prototype, not a member.
    if (key === '__proto__') return undefined;
    const member = value[key];
    if (
      typeof member === 'string' ||
      typeof member === 'boolean' ||
      member === null ||
      (typeof member === 'number' && Number.isFinite(member))
    ) {
      copy[key] = member;
    } else return undefined;
  }
  return Object.freeze(copy);
}

/**
 * The answer to a call that succeeded: its output as content and, when it has a
 * structured result, that as `structuredContent`. A tool that declares an output schema
 * must give one that fits it: no structured result, or one that does not fit, is an
 * isError result saying so.
 */
function successOf(served: ServedTool, result: Result): CallToolResult {
  const answer: CallToolResult = { content: contentOf(result.output) };
  const structured = structuredOf(result, served.output !== undefined);
  if (served.output !== undefined) {
    const problem =
      structured === undefined
        ? `mcp: tool ${goQuote(served.tool.name)} declares an output schema and returned no JSON object`
        : served.output(structured);
    if (problem !== undefined) return failure(problem, result.details);
  }
  if (structured !== undefined) answer.structuredContent = structured;
  // Most results carry no details; recordMeta's guard costs a try block per call.
  const meta = result.details === undefined ? undefined : recordMeta(result.details);
  if (meta !== undefined) answer._meta = meta;
  return answer;
}

/** The result of a call in a session whose `onSession` hook failed. */
export function sessionFailure(error: unknown): CallToolResult {
  return failure(`mcp: session setup failed: ${errorMessage(error)}`);
}

/** An `isError` result whose one text block is `message`, with the record of `details`. */
export function failure(message: string, details?: unknown): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: message }], isError: true };
  const meta = recordMeta(details);
  if (meta !== undefined) result._meta = meta;
  return result;
}
