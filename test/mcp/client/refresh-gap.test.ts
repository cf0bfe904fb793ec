/**
 * A server that sends list-changed notifications without end gets at most one listing
 * every LIST_REFRESH_GAP_MS from a connection, not one after another as fast as it
 * answers (which kept a composed server busy on a core); a notification after a quiet
 * spell is listed at once, and what a notification changed is still waited for. On
 * jest's clock, so that the counts do not follow the machine's load.
 */
import { LIST_REFRESH_GAP_MS, ListRefresher } from '../../../src/mcp/client/refresh';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Lets every promise callback queued so far run (and those they queue). */
async function drain(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

test('listings started by a flood of notifications are spaced; the last one is reflected', async () => {
  let listings = 0;
  const refresher = new ListRefresher(
    async () => {
      listings++;
      await Promise.resolve();
    },
    () => undefined,
  );
  // A notification after a quiet spell: listed at once.
  refresher.notified();
  await drain();
  expect(listings).toBe(1);
  // A notification every millisecond for ten gaps' time.
  for (let ms = 0; ms < 10 * LIST_REFRESH_GAP_MS; ms++) {
    refresher.notified();
    jest.advanceTimersByTime(1);
    await drain();
  }
  expect(refresher.seen).toBe(1 + 10 * LIST_REFRESH_GAP_MS);
  expect(listings).toBeGreaterThanOrEqual(10);
  expect(listings).toBeLessThanOrEqual(1 + 10 + 1);
  // What came last is listed once its gap has passed.
  const settled = refresher.settled();
  jest.advanceTimersByTime(LIST_REFRESH_GAP_MS);
  await drain();
  await settled;
  expect(listings).toBeLessThanOrEqual(1 + 10 + 2);
});
