import {
  type Answer,
  CANCELLED_ANSWER,
  currentContext,
  type Elicitation,
  type Recordable,
  type Session,
} from '../core';

/**
 * Injectable by its class: writes records for the call being served. A tool takes it in
 * its constructor and calls `this.recorder.write(details)`; it acts on the current call
 * (through the call context), and is a no-op outside a call or without a recorder.
 */
export class CallRecorder {
  /** Writes a recordable value now, durably, for the current call. */
  async write(details: Recordable): Promise<void> {
    const ctx = currentContext();
    if (ctx === undefined) return;
    await ctx.record(details);
  }
}

/**
 * Injectable by its class: asks the user on behalf of the call being served. Outside a
 * call, or without an elicitor, the answer is `cancel`.
 */
export class CallElicitor {
  /** Puts a question to the user of the current call. */
  async ask(question: Elicitation): Promise<Answer> {
    const ctx = currentContext();
    if (ctx === undefined) return CANCELLED_ANSWER;
    return ctx.ask(question);
  }
}

/** Injectable by its class: the client session of the call being served, if any. */
export class CallSession {
  /** The current call's session; undefined outside a call or where no transport has one. */
  get current(): Session | undefined {
    return currentContext()?.session;
  }
}
