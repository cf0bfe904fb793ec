import {
  AgentToolError,
  errorMessage,
  isJsonObject,
  type Root,
  type SamplingRequest,
  type SamplingResult,
} from '../../core';
import { type CallInFlight } from './elicitation';
import { describedExcerpt, quotedExcerpt } from './excerpts';
import { linkedSignal } from '../signals';

/**
 * The caller's own lender of a model: it writes the message a server's
 * `sampling/createMessage` asks for (it wins over the call's own `ctx.sample`).
 */
export type SamplingHandler = (
  request: SamplingRequest,
  extra: { readonly signal: AbortSignal },
) => SamplingResult | Promise<SamplingResult>;

/** The caller's own lister of roots (it wins over the call's own `ctx.roots`). */
export type RootsHandler = (extra: {
  readonly signal: AbortSignal;
}) => readonly Root[] | Promise<readonly Root[]>;

/** How this client answers a server's `roots/list`, as the options set it up. */
export type RootsSource =
  | { readonly kind: 'handler'; readonly handler: RootsHandler }
  | { readonly kind: 'fixed'; readonly roots: readonly Root[] }
  | { readonly kind: 'call' };

/**
 * A server's `sampling/createMessage` params as the request a sampler takes. Throws
 * for params that are not a sampling request (no messages, no token limit).
 */
export function samplingRequestOf(params: unknown): SamplingRequest {
  if (
    !isJsonObject(params) ||
    !Array.isArray(params.messages) ||
    typeof params.maxTokens !== 'number'
  ) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: sampling: the server sent ${describedExcerpt(params)}, not a sampling request { messages, maxTokens }`,
    );
  }
  return params as unknown as SamplingRequest;
}

/** A sampler's answer as MCP carries it; throws for one MCP cannot carry. */
export function createMessageResultOf(result: SamplingResult): Record<string, unknown> {
  if (
    !isJsonObject(result) ||
    (result.role !== 'assistant' && result.role !== 'user') ||
    typeof result.model !== 'string' ||
    !isJsonObject(result.content) ||
    typeof result.content.type !== 'string'
  ) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: sampling answer: expected { role, content, model }, got ${describedExcerpt(result)}`,
    );
  }
  return {
    role: result.role,
    content: result.content,
    model: result.model,
    ...(typeof result.stopReason === 'string' ? { stopReason: result.stopReason } : {}),
  };
}

/** Roots as MCP's `roots/list` result; throws for a root without a URI. */
export function listRootsResultOf(roots: readonly Root[]): { roots: Root[] } {
  if (!Array.isArray(roots)) {
    throw new AgentToolError(
      'PROTOCOL',
      `mcp: roots: expected a list of { uri, name? }, got ${describedExcerpt(roots)}`,
    );
  }
  return {
    roots: roots.map((root: unknown) => {
      if (!isJsonObject(root) || typeof root.uri !== 'string') {
        throw new AgentToolError(
          'PROTOCOL',
          `mcp: roots: a root must be { uri, name? }, got ${describedExcerpt(root)}`,
        );
      }
      return typeof root.name === 'string' ? { uri: root.uri, name: root.name } : { uri: root.uri };
    }),
  };
}

/**
 * Has the model of the call `call` write (its context's `ctx.sample`), or `handler`
 * when given. Ends with an error when the call ends or `signal` aborts first: a turn of a
 * model has no answer that stands for "nobody", as a question has `cancel`.
 */
export async function sampleFor(
  call: CallInFlight | undefined,
  handler: SamplingHandler | undefined,
  params: unknown,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const request = samplingRequestOf(params);
  const result = await untilEnded('sampling', call, signal, (linked) =>
    handler !== undefined
      ? handler(request, { signal: linked })
      : call!.ctx.with({ signal: linked }).sample(request),
  );
  return createMessageResultOf(result);
}

/** The roots for a server's `roots/list`, from `source` (or the call's `ctx.roots`). */
export async function rootsFor(
  call: CallInFlight | undefined,
  source: RootsSource,
  signal: AbortSignal,
): Promise<{ roots: Root[] }> {
  if (source.kind === 'fixed') return listRootsResultOf(source.roots);
  const roots = await untilEnded('roots', call, signal, (linked) =>
    source.kind === 'handler'
      ? source.handler({ signal: linked })
      : call!.ctx.with({ signal: linked }).roots(),
  );
  return listRootsResultOf(roots);
}

/**
 * Runs `work` with a signal that aborts when the call ends or `signal` aborts, and fails
 * at once when either happens first. Failures read `mcp: <feature>: <reason>`.
 */
async function untilEnded<T>(
  feature: 'sampling' | 'roots',
  call: CallInFlight | undefined,
  signal: AbortSignal,
  work: (signal: AbortSignal) => T | Promise<T>,
): Promise<T> {
  const linked = call === undefined ? linkedSignal(signal) : linkedSignal(call.ended, signal);
  let stop: () => void = () => undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () =>
      reject(
        new AgentToolError(
          'CANCELLED',
          `mcp: ${feature}: the call ended before the answer came: ${errorMessage(linked.signal.reason)}`,
        ),
      );
    if (linked.signal.aborted) stop();
    else linked.signal.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    return await Promise.race([(async () => work(linked.signal))(), stopped]);
  } catch (error) {
    if (error instanceof AgentToolError && error.code === 'CANCELLED') throw error;
    throw new AgentToolError('PROTOCOL', `mcp: ${feature}: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    linked.signal.removeEventListener('abort', stop);
    linked.dispose();
  }
}

/**
 * The call `owned` names (see `RemoteCalls.owner`), or an error saying why the server's
 * request cannot be tied to one.
 */
export function tiedCall(
  feature: 'sampling' | 'roots',
  owned: { readonly call: CallInFlight | undefined; readonly why: string },
): CallInFlight {
  if (owned.call !== undefined) return owned.call;
  throw new AgentToolError(
    'PROTOCOL',
    `mcp: ${feature}: the server's request cannot be tied to one call (${owned.why}); give connectMcp a ${feature === 'sampling' ? 'samplingHandler' : 'rootsHandler or a list of roots'} to answer it for the connection`,
  );
}

/**
 * Quoted for an error: the method a server asked for that this client does not offer
 * (`where` says what asked: `mcp: call "<name>"`, `mcp: prompts/get "<name>" ...`).
 * `noContext`: the request was made without a context whose sampler or roots could
 * answer, so only a handler (or a list of roots) for the whole connection can.
 */
export function notOffered(
  where: string,
  method: unknown,
  request: unknown,
  noContext = false,
): AgentToolError {
  const option = noContext
    ? WITHOUT_CONTEXT[typeof method === 'string' ? method : '']
    : OPTION_OF[typeof method === 'string' ? method : ''];
  // The server's method, quoted cut short: it may be as long as a message.
  const asked = typeof method === 'string' ? quotedExcerpt(method) : describedExcerpt(request);
  return new AgentToolError(
    'PROTOCOL',
    `${where}: the server asked for ${asked}, which this client does not offer${option === undefined ? '' : ` (${option})`}`,
  );
}

const WITHOUT_CONTEXT: Readonly<Record<string, string>> = {
  'elicitation/create': 'connect with elicitation: true or an elicitationHandler',
  'sampling/createMessage':
    'connect with a samplingHandler, or pass a context whose sampler answers, with sampling: true',
  'roots/list':
    'connect with a list of roots or a rootsHandler, or pass a context whose roots answer, with roots: true',
};

const OPTION_OF: Readonly<Record<string, string>> = {
  'elicitation/create': 'connect with elicitation: true or an elicitationHandler',
  'sampling/createMessage': 'connect with sampling: true or a samplingHandler',
  'roots/list': 'connect with roots: true, a list of roots, or a rootsHandler',
};
