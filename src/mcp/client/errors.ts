import { AgentToolError, errorMessage, goQuote, isJsonObject } from '../../core';

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
 * JSON-RPC error's message, else the error's own.
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
