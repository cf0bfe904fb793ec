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

function invalidParams(method: string, error: unknown): ProtocolError | undefined {
  // The SDK's refusal: an Error itself, not a subclass, holding a JSON array.
  if (!(error instanceof Error) || error.constructor !== Error) return undefined;
  if (!error.message.startsWith('[')) return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
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
  let text = described.join('; ');
  if (text.length > ISSUES_LIMIT) text = `${text.slice(0, ISSUES_LIMIT)}...`;
  return new ProtocolError(INVALID_PARAMS, `Invalid params for ${method}: ${text}`);
}
