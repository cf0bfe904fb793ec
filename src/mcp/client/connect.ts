import {
  type Client,
  type ClientCapabilities,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { AgentToolError, errorMessage } from '../../core';
import { SESSIONS_EXTENSION } from './session-extension';
import { clientSdk } from './sdk-modules';
import { type HttpTarget, type McpTarget, transportFor } from './transport';

/** Which protocol era a connection speaks. */
export type ProtocolChoice = 'auto' | 'modern' | 'legacy';

/** What the SDK client is built from. */
export interface ClientSetup {
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly capabilities: ClientCapabilities;
  readonly protocol: ProtocolChoice;
  /** Installs the connection's handlers on a new SDK client, before it connects. */
  readonly install: (client: Client) => void;
  readonly signal: AbortSignal | undefined;
}

/** A pending interactive authorization, as {@link StoredAuthProvider} keeps one. */
interface AuthorizationCodeSource {
  takeAuthorizationCode(): string | URLSearchParams | undefined;
}

/**
 * Connects an SDK client to `target`: 2026-07-28 when the server serves it and the
 * choice allows, the 2025 era otherwise. When the server asks for authorization and the
 * target's auth provider has taken the user through it in between (it holds the
 * authorization code), the code is exchanged and the client connects again on a fresh
 * transport. Connection failures read `mcp: connect: <reason>`.
 */
export async function connectClient(target: McpTarget, setup: ClientSetup): Promise<Client> {
  let transport = transportFor(target);
  try {
    return await connectOnce(transport, setup);
  } catch (error) {
    const code = authorizationCode(target, error);
    const http = clientSdk().StreamableHTTPClientTransport;
    if (code === undefined || !(transport instanceof http)) throw connectError(error);
    // The user authorized in between: exchange the code, then connect afresh.
    try {
      await (typeof code === 'string' ? transport.finishAuth(code) : transport.finishAuth(code));
      transport = transportFor(target);
      return await connectOnce(transport, setup);
    } catch (retryError) {
      throw connectError(retryError);
    }
  }
}

async function connectOnce(transport: Transport, setup: ClientSetup): Promise<Client> {
  const capabilities: ClientCapabilities = {
    ...setup.capabilities,
    // A 2026-07-28 server's session handle is carried on every call (see the README).
    extensions: { ...setup.capabilities.extensions, [SESSIONS_EXTENSION]: {} },
  };
  const client = new (clientSdk().Client)(
    { name: setup.clientInfo.name, version: setup.clientInfo.version },
    { capabilities, versionNegotiation: { mode: negotiation(setup.protocol) } },
  );
  setup.install(client);
  try {
    await client.connect(transport, setup.signal === undefined ? {} : { signal: setup.signal });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return client;
}

function negotiation(choice: ProtocolChoice): VersionNegotiationMode {
  switch (choice) {
    case 'legacy':
      return 'legacy';
    case 'modern':
      return { pin: '2026-07-28' };
    default:
      return 'auto';
  }
}

/** `mcp: connect: <reason>`, code `CONNECTION` (an AgentToolError as it is). */
export function connectError(error: unknown): AgentToolError {
  if (error instanceof AgentToolError) return error;
  return new AgentToolError('CONNECTION', `mcp: connect: ${errorMessage(error)}`, { cause: error });
}

function authorizationCode(
  target: McpTarget,
  error: unknown,
): string | URLSearchParams | undefined {
  if (!(error instanceof clientSdk().UnauthorizedError)) return undefined;
  const provider = (target as Partial<HttpTarget>).authProvider as
    Partial<AuthorizationCodeSource> | undefined;
  if (typeof provider?.takeAuthorizationCode !== 'function') return undefined;
  return provider.takeAuthorizationCode();
}
