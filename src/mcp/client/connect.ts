import type { ChildProcess } from 'node:child_process';
import {
  type Client,
  type ClientCapabilities,
  type Transport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { AgentToolError, isJsonObject } from '../../core';
import { dispatchRequestsFirst } from '../dispatch';
import { causes, httpFailure, refusalText } from './errors';
import { SESSIONS_EXTENSION } from './session-extension';
import { clientSdk, clientStdio } from './sdk-modules';
import { tellingStreamEnds } from './stream-ends';
import { acceptTaskResults, TASKS_EXTENSION } from './tasks/follow';
import { notePeer, traceClient } from './telemetry';
import { codeSource } from './reauthorize';
import { armReauthorization, type HttpTarget, type McpTarget, transportFor } from './transport';

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
  /**
   * Told when the response stream of a request marked with `STREAM_HEADER` ends for good
   * without its answer; only on a Streamable HTTP transport made here from a URL.
   */
  readonly streamEnded?: (mark: string) => void;
}

/**
 * Connects an SDK client to `target`: 2026-07-28 when the server serves it and the
 * choice allows, the 2025 era otherwise. When the server asks for authorization and the
 * target's auth provider has taken the user through it in between (it holds the
 * authorization code), the code is exchanged and the client connects again on a fresh
 * transport. Once connected, the transport completes the authorizations the server asks
 * for later (see reauthorize.ts). Connection failures read `mcp: connect: <reason>`.
 */
export async function connectClient(target: McpTarget, setup: ClientSetup): Promise<Client> {
  let transport = transportMadeFor(target, setup);
  try {
    const client = await connectOnce(transport, setup);
    armReauthorization(transport);
    return client;
  } catch (error) {
    const code = authorizationCode(target, error);
    const http = clientSdk().StreamableHTTPClientTransport;
    if (code === undefined || !(transport instanceof http)) throw connectError(error);
    // The user authorized in between: exchange the code, then connect afresh.
    try {
      await (typeof code === 'string' ? transport.finishAuth(code) : transport.finishAuth(code));
      transport = transportMadeFor(target, setup);
      const client = await connectOnce(transport, setup);
      armReauthorization(transport);
      return client;
    } catch (retryError) {
      throw connectError(retryError);
    }
  }
}

/** A fresh transport for the target; one made from a URL tells the ends of call streams. */
function transportMadeFor(target: McpTarget, setup: ClientSetup): Transport {
  const transport = transportFor(target);
  notePeer(transport, target);
  const ended = setup.streamEnded;
  if (ended !== undefined && transport !== target) {
    if (transport instanceof clientSdk().StreamableHTTPClientTransport) {
      tellingStreamEnds(transport, ended);
    }
  }
  return transport;
}

async function connectOnce(transport: Transport, setup: ClientSetup): Promise<Client> {
  const capabilities: ClientCapabilities = {
    ...setup.capabilities,
    // A 2026-07-28 server's session handle is carried on every call (see the README),
    // and a call it answers with a task is followed to its result (tasks/follow.ts).
    extensions: {
      ...setup.capabilities.extensions,
      [SESSIONS_EXTENSION]: {},
      [TASKS_EXTENSION]: {},
    },
  };
  const client = new (clientSdk().Client)(
    { name: setup.clientInfo.name, version: setup.clientInfo.version },
    { capabilities, versionNegotiation: versionNegotiation(setup.protocol, transport) },
  );
  setup.install(client);
  traceClient(client, transport);
  const serverGone = watchServerProcess(transport);
  // An abort closes the transport: that also stops a probe the SDK runs on a second
  // server process, which the signal alone does not reach.
  const abort = (): void => void transport.close().catch(() => undefined);
  setup.signal?.addEventListener('abort', abort, { once: true });
  // A listener the transport had of its own is called first by the SDK's dispatch, which
  // is then kept as it is.
  const listened = transport.onmessage !== undefined;
  try {
    if (setup.signal?.aborted === true) throw setup.signal.reason;
    await client.connect(transport, setup.signal === undefined ? {} : { signal: setup.signal });
    const connected = client.transport ?? transport;
    // Progress and log lines are told as notifications before the SDK tries them as
    // responses (see dispatchRequestsFirst); then a task answer is carried to its call.
    if (!listened) dispatchRequestsFirst(client, connected, clientSdk());
    acceptTaskResults(connected);
  } catch (error) {
    await client.close().catch(() => undefined);
    // The SDK may have begun closing already (without waiting for it): a failed
    // connection ends once the server's process has, so none is left behind.
    await serverGone();
    throw error;
  } finally {
    setup.signal?.removeEventListener('abort', abort);
  }
  return client;
}

/**
 * For a stdio transport, a function resolving once the server's process has ended (at
 * once when it never started); the transport's close ends its stdin, then signals it.
 */
function watchServerProcess(transport: Transport): () => Promise<void> {
  // `pid` first, so that an HTTP connection does not load the stdio module.
  if (!('pid' in transport) || !(transport instanceof clientStdio().StdioClientTransport)) {
    return () => Promise.resolve();
  }
  let started = false;
  let ended!: () => void;
  const gone = new Promise<void>((resolve) => (ended = resolve));
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    started = true;
    endWhenServerExits(transport);
  };
  // The client chains its own handler after this one; the stdio transport calls it
  // when the process has closed.
  const previous = transport.onclose;
  transport.onclose = () => {
    ended();
    previous?.();
  };
  return () => (started ? gone : Promise.resolve());
}

/**
 * How long the output of a server whose process has exited is still read, when another
 * process keeps its stdout open, before the connection ends.
 */
const EXITED_SERVER_DRAIN_MS = 100;

/**
 * Ends the connection once the server's process has exited, although a process it
 * started keeps its stdout open (a helper it spawned with its own stdout, a background
 * job of a wrapper script): the SDK's transport ends it on the process's `close`, which
 * then never comes, and every call would wait for its timeout. What the server wrote
 * before it exited is read first; closing its pipes then brings the `close`.
 */
function endWhenServerExits(transport: Transport): void {
  // The SDK keeps the child process to itself (a pinned version: a test holds this).
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  child?.once('exit', () => {
    setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
    }, EXITED_SERVER_DRAIN_MS).unref();
  });
}

/**
 * How long `auto` waits over stdio for the answer to `server/discover` before it speaks
 * the 2025 era: some 2025-era servers never answer a request they do not know before
 * `initialize`, and the SDK would wait its whole request timeout (60 s) for each
 * connection. A server slower than this to start (a first `npx` or `uvx` download) is
 * spoken to in the 2025 era, which a server of both eras serves; over HTTP, silence
 * stays an error.
 */
const STDIO_DISCOVER_TIMEOUT_MS = 10_000;

function versionNegotiation(
  choice: ProtocolChoice,
  transport: Transport,
): { mode: VersionNegotiationMode; probe?: { timeoutMs: number } } {
  const mode = negotiation(choice);
  // `pid` first, so that an HTTP connection does not load the stdio module.
  const stdio = 'pid' in transport && transport instanceof clientStdio().StdioClientTransport;
  return mode === 'auto' && stdio
    ? { mode, probe: { timeoutMs: STDIO_DISCOVER_TIMEOUT_MS } }
    : { mode };
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
  const sdk = clientSdk();
  if (error instanceof sdk.SdkHttpError && (error.status === 429 || error.status === 503)) {
    // The server refused the connection before it held anything (a share or a limit).
    return new AgentToolError(
      'CONNECTION',
      `mcp: connect: the server refused the connection (HTTP ${error.status}): ${refusalText(error)}`,
      { cause: error },
    );
  }
  const http = httpFailure(error);
  if (http !== undefined) {
    return new AgentToolError(http.code, `mcp: connect: ${http.message}`, { cause: error });
  }
  if (error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout) {
    const data = (error as { data?: unknown }).data;
    const ms = isJsonObject(data) && typeof data.timeout === 'number' ? data.timeout : undefined;
    return new AgentToolError(
      'CONNECTION',
      `mcp: connect: the server did not answer initialize${ms === undefined ? '' : ` within ${ms} ms`} (give connectMcp a signal to stop waiting sooner)`,
      { cause: error },
    );
  }
  return new AgentToolError('CONNECTION', `mcp: connect: ${causes(error)}`, { cause: error });
}

function authorizationCode(
  target: McpTarget,
  error: unknown,
): string | URLSearchParams | undefined {
  if (!(error instanceof clientSdk().UnauthorizedError)) return undefined;
  return codeSource((target as Partial<HttpTarget>).authProvider)?.takeAuthorizationCode();
}
