import { type JsonObject } from './json';

/**
 * A question put to the user during a call. A form question carries a flat object
 * `schema` for the answer; an out-of-band question carries a `url` to open instead.
 */
export interface Elicitation {
  /**
   * Names the question among those the call asks in one round: an MCP 2026-07-28
   * server sends it to the client under this key (`inputRequests`), so a client that
   * knows the tool can answer it by name. A call that arrives with an answer under this
   * key and no request state (a client that keeps no state and sends its answers up
   * front) gets that answer without the question going back. Default: `elicit_<n>`.
   * Ignored where questions are not keyed (the 2025 era, a local elicitor).
   */
  readonly key?: string;
  readonly message: string;
  /** The requested form schema; absent when the question is not a form. */
  readonly schema?: JsonObject;
  /** The page to open; absent for a form. */
  readonly url?: string;
}

/** accept (content is the form), decline (an explicit no), cancel (dismissed, or nobody asked). */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** The user's answer. `content` is set only when the action is `accept` on a form. */
export interface Answer {
  readonly action: ElicitationAction;
  readonly content?: JsonObject;
}

/** The answer when there is nobody to ask. */
export const CANCELLED_ANSWER: Answer = Object.freeze({ action: 'cancel' });
