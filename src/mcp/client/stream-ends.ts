import { type Transport } from '@modelcontextprotocol/client';

/**
 * Names a call's request to the transport, so that the end of its response stream can be
 * told to the call. It never leaves the process: the transport takes it off first.
 */
export const STREAM_HEADER = 'x-agenttool-stream';

/**
 * Makes `transport` tell `ended` when the response stream of a request marked with
 * {@link STREAM_HEADER} ends for good without the request's answer (the server closed
 * it and it could not be resumed). The SDK's Streamable HTTP transport reports that
 * (`onRequestStreamEnd`) only to whoever asks, and a 2025-era request does not: its call
 * would wait for an answer that cannot come. A request that was answered on the stream
 * is told too; by then its answer has settled it, and the call ignores the news.
 */
export function tellingStreamEnds(transport: Transport, ended: (mark: string) => void): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const mark = options?.headers?.[STREAM_HEADER];
    if (options === undefined || mark === undefined) return send(message, options);
    const headers = { ...options.headers };
    delete headers[STREAM_HEADER];
    return send(message, {
      ...options,
      headers,
      onRequestStreamEnd: options.onRequestStreamEnd ?? (() => ended(mark)),
    });
  };
}
