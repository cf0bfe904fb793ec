import { errorMessage, isJsonObject } from '../../../core';
import { FORWARDED_CALLER_HEADER } from './forwarded-caller';
import { type ScaleOut } from './scale-out';

/** Marks a request one instance forwarded to another: it is never forwarded again. */
export const FORWARDED_BY_HEADER = 'x-agenttool-forwarded-by';

// Not passed on: the hop's own headers, and those the next hop sets itself. The origin
// was checked here; the owner checks its own host. A client's own forwarded caller is
// dropped (the owner would not believe it anyway).
const NOT_FORWARDED = new Set([
  'connection',
  'content-length',
  'expect',
  FORWARDED_CALLER_HEADER,
  'host',
  'keep-alive',
  'origin',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const NOT_RETURNED = new Set([
  'connection',
  'content-encoding',
  'content-length',
  'keep-alive',
  'transfer-encoding',
]);

/**
 * Serves a 2026-07-28 request on the instance it belongs to, when that is another one
 * (see {@link ScaleOut.elsewhere}): the request goes there as it came, and the answer,
 * streamed or not, comes back through this instance. Undefined: serve it here. That is
 * the case too when the owner refuses the connection (it is gone, nothing was sent):
 * answers to a parked call then get "no longer waiting" here, and a session's call runs
 * in a new session here. An owner that fails after taking the request is a 502 error,
 * never a second run. `address`, the client's address as this instance counts it (when
 * it counts the caller by address, without authorization), goes along signed, so the
 * owner counts the request against the client's shares rather than this instance's.
 */
export async function serveElsewhere(
  scale: ScaleOut,
  request: Request,
  body: unknown,
  handleArgument?: (tool: string) => string | undefined,
  address?: string,
): Promise<Response | undefined> {
  if (request.headers.has(FORWARDED_BY_HEADER)) return undefined;
  const target = await scale.elsewhere(body, handleArgument);
  if (target === undefined) return undefined;
  const headers = new Headers();
  for (const [name, value] of request.headers) {
    if (!NOT_FORWARDED.has(name)) headers.set(name, value);
  }
  headers.set(FORWARDED_BY_HEADER, scale.instanceId);
  if (address !== undefined) headers.set(FORWARDED_CALLER_HEADER, scale.callers.sign(address));
  let answer: Response;
  try {
    answer = await fetch(target.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: request.signal,
      redirect: 'manual',
    });
  } catch (error) {
    if (request.signal.aborted || connectionRefused(error)) return undefined;
    return Response.json(
      {
        jsonrpc: '2.0',
        id: requestId(body),
        error: {
          code: -32603,
          message: `mcp: the instance serving this call (${target.instance}) failed before it answered: ${errorMessage(error)}`,
        },
      },
      { status: 502 },
    );
  }
  const returned = new Headers();
  for (const [name, value] of answer.headers) {
    if (!NOT_RETURNED.has(name)) returned.set(name, value);
  }
  return new Response(answer.body, {
    status: answer.status,
    statusText: answer.statusText,
    headers: returned,
  });
}

function connectionRefused(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function requestId(body: unknown): string | number | null {
  if (!isJsonObject(body)) return null;
  return typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
}
