import { AgentToolError, errorMessage } from './public-api';
import { CliError, ExitCode } from './exit-codes';

/** JSON-RPC invalid params: an unknown prompt or URI, arguments that do not fit. */
const INVALID_PARAMS = -32602;
/** What 2025-era servers answer for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed request for a prompt, a resource or a listing as a {@link CliError}: a
 * request the server refused as invalid (unknown name or URI, arguments that do not
 * fit) is a bad argument (2); a connection lost or refused is 3; cancelled is 130; a
 * prompt or read that ran and failed is 1. `hint` is added to a bad argument's message.
 */
export function primitiveFailure(error: unknown, hint = ''): CliError {
  if (error instanceof CliError) return error;
  const message = `agenttool: ${errorMessage(error)}`;
  if (error instanceof AgentToolError) {
    if (error.code === 'CONNECTION')
      return new CliError(ExitCode.CONNECTION, message, { cause: error });
    if (error.code === 'CANCELLED') {
      return new CliError(ExitCode.INTERRUPTED, message, { cause: error });
    }
  }
  const code = rpcCode(error);
  if (code === INVALID_PARAMS || code === RESOURCE_NOT_FOUND) {
    return new CliError(ExitCode.BAD_ARGUMENTS, `${message}${hint}`, { cause: error });
  }
  return new CliError(ExitCode.TOOL_ERROR, message, { cause: error });
}

/** The JSON-RPC error code on the error or its cause (the SDK's ProtocolError). */
function rpcCode(error: unknown): number | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    e = e.cause;
  }
  return undefined;
}
