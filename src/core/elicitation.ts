import { type JsonObject } from './json';

/**
 * A question put to the user during a call. A form question carries a flat object
 * `schema` for the answer; an out-of-band question carries a `url` to open instead.
 */
export interface Elicitation {
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
