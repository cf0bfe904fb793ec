import { type AccessRequest, type AccessVerdict } from './auth';
import { accessOf, type Tool } from './tool';

const ALLOWED: AccessVerdict = Object.freeze({ allowed: true });

/**
 * Whether `request.auth` may use `tool`: every scope of its access first (a caller
 * without credentials holds none), then every guard in order, each awaited. A guard
 * that throws refuses (`failed`, with the error for the host to report). Nothing else
 * allows: not the tool's annotations, not a guard that answers anything but `true`.
 */
export async function checkAccess(
  tool: Pick<Tool, 'access'>,
  request: AccessRequest,
): Promise<AccessVerdict> {
  const access = accessOf(tool);
  if (access === undefined) return ALLOWED;
  const held = new Set(request.auth?.scopes ?? []);
  const missing = (access.scopes ?? []).filter((scope) => !held.has(scope));
  if (missing.length > 0) return { allowed: false, reason: 'scope', missing };
  for (const guard of access.guards ?? []) {
    let answer: unknown;
    try {
      answer = await guard(request);
    } catch (error) {
      return { allowed: false, reason: 'failed', error };
    }
    if (answer !== true) return { allowed: false, reason: 'guard' };
  }
  return ALLOWED;
}
