import {
  type AuthInfo,
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

/**
 * Injectable by its class: the verified caller of the call being served (under MCP
 * over HTTP with authorization: the bearer token's subject, scopes, client id and
 * expiry). A service deep in a call reads who it acts for without threading it.
 */
export class CallAuth {
  /** The current call's caller; undefined outside a call or where none was verified. */
  get current(): AuthInfo | undefined {
    return currentContext()?.auth;
  }

  /** The current caller's subject; undefined without a verified caller. */
  get subject(): string | undefined {
    return this.current?.subject;
  }

  /** True when the current caller's token carries every one of `scopes`. */
  hasScopes(...scopes: string[]): boolean {
    const held = this.current?.scopes ?? [];
    return scopes.every((scope) => held.includes(scope));
  }
}
