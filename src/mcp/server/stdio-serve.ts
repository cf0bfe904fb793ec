import type * as ServerStdio from '@modelcontextprotocol/server/stdio';
import { type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import { type PrimitiveHost, StdioResourceListens } from './primitives';
import { type Closer, type StdioConnection, type StdioServeOptions } from './server-options';
import { boundedStdioTransport } from './stdio-transport';
import { listenRefusal } from './tasks';

/** What serving a stdio connection takes of the server (see `McpToolServer.serveStdio`). */
export interface StdioServed {
  readonly host: PrimitiveHost;
  /** A new instance for the connection, in the era its client opened with. */
  instance(
    era: 'legacy' | 'modern',
    answersRead: (signal?: AbortSignal) => Promise<void> | undefined,
  ): Server;
  onResourceUpdated(listener: (uri: string) => Promise<void>): () => void;
  addCloser(closer: Closer): () => void;
}

/**
 * Serves one connection over stdio through the SDK's stdio entry, which pins an
 * instance to the era the client opens with. Around the entry: the input and output
 * bounds (`boundedStdioTransport`), a listen for task notifications without the tasks
 * extension refused (-32021), and a 2026-07-28 listen's resource subscriptions checked,
 * followed and told of changes (`StdioResourceListens`; the entry's listen router does
 * neither). The connection ends when stdin ends or it is closed.
 */
export function serveStdioConnection(served: StdioServed, io: StdioServeOptions): StdioConnection {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  const stdio = require('@modelcontextprotocol/server/stdio') as typeof ServerStdio;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const report = (error: unknown): void => served.host.report('mcp: stdio', error);
  const { transport, release, answersRead } = boundedStdioTransport(stdio, io, report);
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const handle = stdio.serveStdio(({ era }) => served.instance(era, answersRead), {
    transport,
    onerror: report,
  });
  const close = async (): Promise<void> => {
    await handle.close();
    ended();
  };
  const listens = new StdioResourceListens(
    served.host,
    (message) => transport.send(message),
    report,
  );
  const unlistenUpdates = served.onResourceUpdated((uri) => listens.resourceUpdated(uri));
  const sendOut = transport.send.bind(transport);
  transport.send = (message) => {
    listens.sent(message);
    return sendOut(message);
  };
  const serveMessage = transport.onmessage;
  transport.onmessage = (message) => {
    const refusal = listenRefusal(message);
    if (refusal !== undefined) {
      transport.send(refusal as JSONRPCMessage).catch(report);
    } else if (!listens.received(message, (held) => serveMessage?.(held))) {
      serveMessage?.(message);
    }
  };
  const unregister = served.addCloser({ close });
  // The entry owns the transport; its close (stdin ended, or close()) ends the connection.
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    listens.close();
    unlistenUpdates();
    release();
    unregister();
    ended();
  };
  return { closed, close };
}
