/**
 * The `_meta` key of the session handle a 2026-07-28 agenttool server gives a client
 * with a call's result; the client carries it on its later requests, which then share
 * the server's session-scoped state. The same string as the server's spelling.
 */
export const SESSION_META_KEY = 'io.github.christopherdavenport.agenttool/session';

/** The client capability (under `extensions`) that says the client carries the handle. */
export const SESSIONS_EXTENSION = 'io.github.christopherdavenport.agenttool/sessions';

/** The request that ends a session held by handle at once (the server's spelling too). */
export const SESSION_END_METHOD = 'io.github.christopherdavenport.agenttool/sessions/end';

/**
 * The `_meta` key by which this client gives up on a 2026-07-28 call whose server waits
 * for its answers (the server's spelling too): the call's request state sent back with it
 * stops the run at once.
 */
export const CANCEL_META_KEY = 'io.github.christopherdavenport.agenttool/cancel';
