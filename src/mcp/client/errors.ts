import { AgentToolError, errorMessage, goQuote, isJsonObject } from '../../core';
import { excerpt, jsonExcerpt } from './excerpts';
import { clientSdk } from './sdk-modules';

/** The text of the error for calls in flight when the connection closes, and calls after. */
export const CONNECTION_CLOSED = 'mcp: connection closed';

/** `mcp: call "<remote>": mcp: connection closed`, code `CONNECTION`. */
export function connectionClosedError(remoteName: string): AgentToolError {
  return new AgentToolError('CONNECTION', `mcp: call ${goQuote(remoteName)}: ${CONNECTION_CLOSED}`);
}

/**
 * A remote tool answered with `isError`: the message is the result's joined text
 * (`tool call failed` when it has none), and `details` is what a successful call's
 * details would have been (the raw result, or its {@link RemoteRecord}).
 */
export class RemoteToolError extends AgentToolError {
  readonly details: unknown;

  constructor(message: string, details: unknown) {
    super('TOOL_FAILED', message);
    this.name = 'RemoteToolError';
    this.details = details;
  }
}

/**
 * What a server's HTTP refusal says (an SDK HTTP error carrying the answer's text): its
 * JSON-RPC error's message, else the error's own. Bounded where it is read: the fetch
 * cuts an HTTP error's body at 4 KiB, marking the cut (see bounded-answers.ts).
 */
export function refusalText(error: unknown): string {
  const data = (error as { data?: unknown } | null)?.data;
  const text = isJsonObject(data) ? data.text : undefined;
  if (typeof text === 'string') {
    try {
      const body: unknown = JSON.parse(text);
      const message =
        isJsonObject(body) && isJsonObject(body.error) ? body.error.message : undefined;
      if (typeof message === 'string') return message;
    } catch {
      // Not JSON: the error's own message says what came.
    }
  }
  return errorMessage(error);
}

/**
 * An error's message and those of its causes, as far as they add something: `fetch
 * failed: connect ECONNREFUSED 127.0.0.1:3000` rather than `fetch failed`; cut at 8 KiB
 * (a message may carry what a server sent).
 */
export function causes(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 4; depth++) {
    const message = errorMessage(e);
    if (message !== '' && message !== '{}' && !parts.includes(message)) parts.push(message);
    e = typeof e === 'object' && e !== null ? (e as { cause?: unknown }).cause : undefined;
  }
  return excerpt(parts.join(': '));
}

/** What a 403 means, besides what its body says. */
const REFUSED =
  'it refuses this client: an authorization it lacks (a scope), or the Host or Origin it was sent';

/**
 * What an HTTP answer that is no MCP answer says, worded for a call or a connection
 * (after `mcp: call "x": ` or `mcp: connect: `): its status and what its body says
 * (an authorization it asks for), or the content type it came with; undefined for
 * other failures (a connection that broke, no answer in time).
 */
export function httpFailure(
  error: unknown,
): { readonly code: 'CONNECTION' | 'PROTOCOL'; readonly message: string } | undefined {
  const sdk = clientSdk();
  const authorize =
    "it wants an authorization this connection did not give (connectMcp's authProvider, or an Authorization header)";
  if (error instanceof sdk.UnauthorizedError) {
    return {
      code: 'CONNECTION',
      message: `the server answered HTTP 401 Unauthorized: ${authorize}`,
    };
  }
  // 499: the SDK's server ending a request because its connection closed (a server
  // stopping): a lost connection, said as one.
  if (
    error instanceof sdk.SdkHttpError &&
    typeof error.status === 'number' &&
    error.status !== 499
  ) {
    const data = (error as { data?: unknown }).data;
    const statusText =
      isJsonObject(data) && typeof data.statusText === 'string' ? data.statusText : '';
    const status = `HTTP ${error.status}${statusText === '' ? '' : ` ${statusText}`}`;
    const said = refusalText(error).replace(/^Error POSTing to endpoint(?: \(HTTP \d+\))?: /, '');
    // An empty body was given its status by bounded-answers.ts: said once.
    const body = said.startsWith(`${status}, no body`) ? 'no body' : said;
    // A 403 is as often the server's DNS-rebinding guard (the Host or Origin sent) as an
    // authorization it lacks (a scope): its body says which.
    const why =
      error.status === 401 ? `: ${authorize}` : error.status === 403 ? `: ${REFUSED}` : '';
    return { code: 'CONNECTION', message: `the server answered ${status}${why}: ${body}` };
  }
  if (
    error instanceof sdk.SdkError &&
    error.code === sdk.SdkErrorCode.ClientHttpUnexpectedContent
  ) {
    const data = (error as { data?: unknown }).data;
    const type =
      isJsonObject(data) && typeof data.contentType === 'string' ? data.contentType : 'none';
    return {
      code: 'PROTOCOL',
      message: `the server answered with content type ${jsonExcerpt(type)}, neither JSON nor an event stream: is the URL its MCP endpoint?`,
    };
  }
  return undefined;
}
