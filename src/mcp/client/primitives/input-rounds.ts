import { type Client, type InputRequiredResult } from '@modelcontextprotocol/client';
import { AgentToolError, isJsonObject } from '../../../core';
import { type RemoteCalls, type SendOptions } from '../calls';
import { type CallInFlight } from '../elicitation';
import { clientSdk } from '../sdk-modules';
import { linkedSignal } from '../../signals';
import { type PrimitiveRequestOptions } from './request-options';

/** The most requests made for one prompt or resource (the first and its answered retries). */
const MAX_REQUESTS = 10;

/** What a retry carries: the answers to the server's requests, and its state verbatim. */
export interface InputRetry {
  readonly inputResponses: Record<string, unknown>;
  readonly requestState?: string;
}

/** Sends one request of the rounds: the first without `retry`, each later one with it. */
export type RoundRequest<T> = (
  client: Client,
  retry: InputRetry | undefined,
  options: SendOptions,
) => Promise<T | InputRequiredResult>;

/**
 * Makes a request that a 2026-07-28 server may answer with `input_required` (a
 * `prompts/get` or a `resources/read`), as a tool call's rounds go: each request the
 * server sends back (a question, a turn of the model, the roots) is answered by the
 * connection's handlers or the options' context, all of one round at once, and the
 * request is made again with the answers and the server's request state, until the
 * server gives the result. Fails with `<where>: the server needs input ...` when the
 * connection takes none, and after {@link MAX_REQUESTS} requests.
 */
export async function withInput<T extends object>(
  calls: RemoteCalls,
  where: string,
  request: RoundRequest<T>,
  options: PrimitiveRequestOptions,
): Promise<T> {
  const context = options.context;
  const signal = options.signal ?? context?.signal;
  const sendOptions = { signal, timeout: options.timeout };
  const ended = new AbortController();
  const entry: CallInFlight | undefined =
    context === undefined ? undefined : { ctx: context, ended: ended.signal };
  const leave = entry === undefined ? undefined : calls.enter(entry);
  try {
    let retry: InputRetry | undefined;
    for (let requests = 1; ; requests++) {
      const result = await calls.send(
        where,
        (client, sent) => request(client, retry, sent),
        sendOptions,
      );
      if (!clientSdk().isInputRequiredResult(result)) return result;
      if (!calls.takesInput) {
        throw new AgentToolError(
          'PROTOCOL',
          `${where}: the server needs input the client did not give; multi round-trip handling is off (connect with elicitation, sampling or roots)`,
        );
      }
      if (requests >= MAX_REQUESTS) {
        throw new AgentToolError(
          'PROTOCOL',
          `${where}: the server still needs input after ${MAX_REQUESTS} requests`,
        );
      }
      retry = await answerAll(calls, where, result, entry, signal);
    }
  } finally {
    ended.abort();
    leave?.();
  }
}

/** The answers to every request of one `input_required` result, put at once. */
async function answerAll(
  calls: RemoteCalls,
  where: string,
  result: InputRequiredResult,
  entry: CallInFlight | undefined,
  signal: AbortSignal | undefined,
): Promise<InputRetry> {
  const linked =
    signal === undefined ? linkedSignal(calls.closed) : linkedSignal(signal, calls.closed);
  try {
    const inputRequests = isJsonObject(result.inputRequests) ? result.inputRequests : {};
    const answered = await Promise.all(
      Object.entries(inputRequests).map(
        async ([id, asked]) =>
          [id, await calls.answer(where, asked, entry, linked.signal)] as const,
      ),
    );
    const inputResponses = Object.fromEntries(answered);
    return result.requestState === undefined
      ? { inputResponses }
      : { inputResponses, requestState: result.requestState };
  } finally {
    linked.dispose();
  }
}
