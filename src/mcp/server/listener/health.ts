import { isJsonObject } from '../../../core';
import { DEFAULT_HEALTH_PATH, jsonRpcError } from '../http';
import { SESSION_END_METHOD } from '../session';

/**
 * The health route of one HTTP endpoint: 200 while the server takes work, 503 once it
 * drains or closes. It counts what it answered, so a drain can wait until a balancer
 * that polls it has been told.
 */
export class HealthRoute {
  readonly path: string | undefined;
  #answered = 0;
  #refused = 0;

  constructor(path: string | false | undefined) {
    this.path = path === false ? undefined : (path ?? DEFAULT_HEALTH_PATH);
  }

  answer(serving: boolean): Response {
    this.#answered++;
    if (!serving) this.#refused++;
    return Response.json(
      { status: serving ? 'serving' : 'draining' },
      { status: serving ? 200 : 503, headers: { 'cache-control': 'no-store' } },
    );
  }

  /** True unless the route was polled and has not yet answered "draining". */
  get told(): boolean {
    return this.#answered === 0 || this.#refused > 0;
  }
}

/**
 * True for a 2026-07-28 request that brings new work, which a draining server refuses:
 * any but the answers to a parked call (a `tools/call` with a `requestState`) and the
 * end of a session.
 */
export function bringsNewWork(body: unknown): boolean {
  if (!isJsonObject(body)) return true;
  // Ending a session frees what it holds: a draining server takes it.
  if (body.method === SESSION_END_METHOD) return false;
  return !(
    body.method === 'tools/call' &&
    isJsonObject(body.params) &&
    typeof body.params.requestState === 'string'
  );
}

/** The answer to new work while the server drains: 503, for the balancer to retry elsewhere. */
export function drainingRefusal(): Response {
  return jsonRpcError(
    503,
    -32000,
    'Service unavailable: the server is draining; send new work to another instance',
    { 'Retry-After': '1' },
  );
}
