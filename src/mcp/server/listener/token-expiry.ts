import { settled } from '../http';

/** The longest delay a timer takes (about 24.8 days); a later expiry is not watched. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * `response`, whose streamed body ends when the bearer token that opened it expires
 * (`expiresAt`, seconds since the epoch): a listening stream lasts no longer than the
 * authorization it was opened with. The client sees the stream end, as when the server
 * closes it, and reopens it with a valid token (an OAuth client refreshes first). A
 * response that does not stream, or a token without expiry, is returned as it is.
 */
export function endingAt(followed: Response, expiresAt: number | undefined): Response {
  // Read here, a followed body tells its followers as it is read (see whenDone).
  const response = settled(followed);
  const source = response.body;
  if (
    source === null ||
    expiresAt === undefined ||
    !Number.isFinite(expiresAt) ||
    !response.headers.get('content-type')?.includes('text/event-stream')
  ) {
    return response;
  }
  const delay = Math.max(0, expiresAt * 1000 - Date.now());
  if (delay > LONGEST_TIMER_MS) return response;
  const reader = (source as ReadableStream<Uint8Array>).getReader();
  let timer: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        void reader.cancel('the token that opened the stream expired').catch(() => undefined);
        try {
          controller.close();
        } catch {
          // Already closed or errored.
        }
      }, delay);
      timer.unref();
    },
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          clearTimeout(timer);
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      } catch (error) {
        clearTimeout(timer);
        try {
          controller.error(error);
        } catch {
          // Closed at expiry meanwhile.
        }
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
