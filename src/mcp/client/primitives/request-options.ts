import { type ToolContext } from '../../../core';

/**
 * How one request for a server's prompts, resources or completions is made. Every
 * field is optional.
 */
export interface PrimitiveRequestOptions {
  /**
   * Ends the request: it fails with `<what>: context canceled` and the server is told it
   * was cancelled. The `context`'s signal when a context is given and this is not.
   */
  readonly signal?: AbortSignal;
  /**
   * A limit on each request made, in milliseconds: the connection's `callTimeout` (15
   * minutes by default) when absent, 0 for none.
   */
  readonly timeout?: number;
  /**
   * Whose elicitor, sampler and roots answer what a 2026-07-28 server needs before it
   * can answer (a prompt or a resource answered with `input_required`), or a 2025-era
   * server asks while this is the only request in flight. The connection's own handlers
   * (`elicitationHandler`, `samplingHandler`, `rootsHandler`, a list of roots) win, as
   * they do for tool calls. Without one, a question is answered `cancel`, and a request
   * for the model or the roots fails naming the option that would answer it.
   */
  readonly context?: ToolContext;
}

/** A list's request options: a list asks the user nothing. */
export type ListOptions = Pick<PrimitiveRequestOptions, 'signal' | 'timeout'>;
