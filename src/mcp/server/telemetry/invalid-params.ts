import { ProtocolError } from '@modelcontextprotocol/server';

const INVALID_PARAMS = -32602;

/** The most of the issues' text an answer quotes (characters). */
const ISSUES_LIMIT = 500;

/**
 * `handler` whose refusal of a request's params by the SDK's schema is an invalid-params
 * error (-32602) naming what is wrong and where. The SDK throws that refusal, for the
 * methods it knows the schema of, as a plain Error whose message is zod's issues as
 * JSON, which it then answers as its own internal error (-32603) with the JSON, lines
 * and all, for a request whose `cursor` is a number, say. Anything else `handler`
 * throws goes on as it was.
 */
export function refusingParamsAsInvalid<R, C, T>(
  method: string,
  handler: (request: R, ctx: C) => T,
): (request: R, ctx: C) => T {
  return (request, ctx) => {
    try {
      return handler(request, ctx);
    } catch (error) {
      throw invalidParams(method, error) ?? error;
    }
  };
}

interface Issue {
  readonly path?: unknown;
  readonly message?: unknown;
}

/**
 * Rewords, in place, the SDK's own refusal of a `tools/call` request's params (it checks
 * them before the handler, as a ProtocolError -32602 `Invalid tools/call request: <zod's
 * issues as JSON, lines and all>`) to name each issue on one line, as
 * {@link refusingParamsAsInvalid} does; any other error is left as it is. In place, so
 * that the handler's promise is the SDK's own, with no turn added to every answer.
 */
export function rewordWireRefusal(method: string, error: unknown): void {
  if (!(error instanceof ProtocolError) || error.code !== INVALID_PARAMS) return;
  const prefix = `Invalid ${method} request: `;
  if (!error.message.startsWith(`${prefix}[`)) return;
  const reworded = issuesError(method, error.message.slice(prefix.length));
  if (reworded !== undefined) error.message = reworded.message;
}

function invalidParams(method: string, error: unknown): ProtocolError | undefined {
  // The SDK's refusal: an Error itself, not a subclass, holding a JSON array.
  if (!(error instanceof Error) || error.constructor !== Error) return undefined;
  if (!error.message.startsWith('[')) return undefined;
  return issuesError(method, error.message);
}

/** Zod's issues as JSON (`text`) as an invalid-params error, undefined if they are not. */
function issuesError(method: string, text: string): ProtocolError | undefined {
  let issues: unknown;
  try {
    issues = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const described: string[] = [];
  for (const issue of issues as Issue[]) {
    if (typeof issue !== 'object' || issue === null || typeof issue.message !== 'string') {
      return undefined;
    }
    const path = Array.isArray(issue.path) ? issue.path.map(String).join('.') : '';
    described.push(path === '' ? issue.message : `${path}: ${issue.message}`);
  }
  let joined = described.join('; ');
  if (joined.length > ISSUES_LIMIT) joined = `${joined.slice(0, ISSUES_LIMIT)}...`;
  return new ProtocolError(INVALID_PARAMS, `Invalid params for ${method}: ${joined}`);
}
