import { AsyncLocalStorage } from 'node:async_hooks';
import { type Session } from 'agenttool';
import { type ContextId, ContextIdFactory, type HostComponentInfo } from '@nestjs/core';

/**
 * What one tool call builds through NestJS: the session it serves (its MCP session, or
 * the server's own for calls without one), and what it made that is the call's to close
 * when it ends (a transient tool, what was built for it).
 */
export interface CallBuild {
  readonly session: Session;
  readonly made: object[];
}

/** The call whose resolution the translated factories run in, if any. */
export const callBuilds = new AsyncLocalStorage<CallBuild>();

/**
 * The tokens of agenttool/di providers whose instances live in a session (session-scoped,
 * or needing such a provider): NestJS keeps their instances in the session's context.
 */
export const sessionTokens = new Set<unknown>();

/** One NestJS context id per session: the session-scoped instances are NestJS's per context. */
const sessionContexts = new WeakMap<Session, ContextId>();
type Parent = (info: HostComponentInfo) => ContextId;
/** The `getParent` a context id had before a session was attached to it (a ContextIdStrategy's). */
const ownParents = new WeakMap<ContextId, Parent | undefined>();

/**
 * Attaches `session` to the context id of one call, as a NestJS `ContextIdStrategy` attaches
 * a tenant: the durable providers of agenttool/di's sessions (durable request-scoped in
 * NestJS, see `asNestModule`) are resolved in the session's own context id, built on its
 * first call and kept until it ends; everything else as before (the call's context, or
 * what the app's own strategy says).
 */
export function attachSession(contextId: ContextId, session: Session): void {
  let context = sessionContexts.get(session);
  if (context === undefined) {
    context = ContextIdFactory.create();
    sessionContexts.set(session, context);
  }
  const own = ownParents.has(contextId)
    ? ownParents.get(contextId)
    : contextId.getParent?.bind(contextId);
  ownParents.set(contextId, own);
  const sessionContext = context;
  contextId.getParent = (info: HostComponentInfo): ContextId => {
    if (info.isTreeDurable && sessionTokens.has(info.token)) return sessionContext;
    return own === undefined ? contextId : own(info);
  };
}

/**
 * The session of calls that come without one (a tool called directly, a transport
 * without sessions): one per server, ended when the server closes, as `ToolApp` gives
 * such calls one session of their own.
 */
export class OwnSession implements Session {
  readonly id = '';
  #listeners: (() => void | Promise<void>)[] = [];
  #ended = false;

  onClose(listener: () => void | Promise<void>): void {
    if (this.#ended) {
      void Promise.resolve().then(listener);
      return;
    }
    this.#listeners.push(listener);
  }

  /** Ends it: runs every listener once, the last registered first; gives back the failures. */
  async end(): Promise<unknown[]> {
    this.#ended = true;
    const errors: unknown[] = [];
    for (const listener of this.#listeners.splice(0).reverse()) {
      try {
        await listener();
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  }
}
