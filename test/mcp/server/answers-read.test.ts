/**
 * A stdio session's `whenAnswersRead` (`answersReadOf`): undefined while its stream has
 * little unwritten, else a promise settled once the reader caught up, the stream ended,
 * or the caller's signal aborted; never a waiter left behind for good.
 */
import { Writable } from 'node:stream';
import { answersReadOf } from '../../../src/mcp/server/stdio-writes';

/** A stream whose reader takes nothing until `read()`. */
function slowStream(options: { highWaterMark?: number; autoDestroy?: boolean } = {}) {
  const parked: (() => void)[] = [];
  // A small high-water mark: the bound is the larger of the two.
  const stream = new Writable({
    highWaterMark: 512,
    ...options,
    write(_chunk, _encoding, done) {
      parked.push(done);
    },
  });
  return {
    stream,
    read: () => {
      for (let done = parked.shift(); done !== undefined; done = parked.shift()) done();
    },
  };
}

/** What `promise` has come to after the event loop has turned a few times. */
async function stateOf(promise: Promise<void>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  return state;
}

const KiB = 1024;

describe('answersReadOf', () => {
  it('says nothing to wait for at or under the bound, and waits past it until the reader drains', async () => {
    const { stream, read } = slowStream();
    const behind = answersReadOf(stream, 10 * KiB);
    stream.write(Buffer.alloc(10 * KiB));
    expect(behind()).toBeUndefined();
    stream.write(Buffer.alloc(KiB));
    const waits = [behind(), behind()];
    expect(waits).not.toContain(undefined);
    expect(await stateOf(waits[0] as Promise<void>)).toBe('pending');
    read();
    read();
    expect(await stateOf(Promise.all(waits as Promise<void>[]).then(() => undefined))).toBe(
      'resolved',
    );
    expect(behind()).toBeUndefined();
    // No listener is left once the waiters have gone.
    expect(stream.listenerCount('drain')).toBe(0);
  });

  it("takes the stream's high-water mark as the bound where it is higher (no 'drain' below it)", async () => {
    const { stream } = slowStream({ highWaterMark: 64 * KiB });
    const behind = answersReadOf(stream, 10 * KiB);
    stream.write(Buffer.alloc(32 * KiB));
    stream.write(Buffer.alloc(16 * KiB));
    expect(behind()).toBeUndefined();
  });

  it('lets waiters go when the stream finishes, closes or fails, whatever it held', async () => {
    const ending = slowStream();
    const behindEnding = answersReadOf(ending.stream, KiB);
    ending.stream.write(Buffer.alloc(2 * KiB));
    const waitingEnd = behindEnding() as Promise<void>;
    ending.stream.end();
    expect(await stateOf(waitingEnd)).toBe('pending');
    ending.read();
    expect(await stateOf(waitingEnd)).toBe('resolved');

    // A stream that keeps itself after an error (autoDestroy off) is not 'destroyed'.
    const failing = slowStream({ autoDestroy: false });
    failing.stream.on('error', () => undefined);
    const behindFailing = answersReadOf(failing.stream, KiB);
    failing.stream.write(Buffer.alloc(2 * KiB));
    const waitingFail = behindFailing() as Promise<void>;
    failing.stream.emit('error', new Error('EIO'));
    expect(await stateOf(waitingFail)).toBe('resolved');

    const destroyed = slowStream();
    const behindDestroyed = answersReadOf(destroyed.stream, KiB);
    destroyed.stream.write(Buffer.alloc(2 * KiB));
    const waitingClose = behindDestroyed() as Promise<void>;
    destroyed.stream.destroy();
    expect(await stateOf(waitingClose)).toBe('resolved');
    expect(behindDestroyed()).toBeUndefined();
  });

  it("rejects with the signal's reason when it aborts first, leaving the others waiting", async () => {
    const { stream, read } = slowStream();
    const behind = answersReadOf(stream, KiB);
    stream.write(Buffer.alloc(2 * KiB));
    const controller = new AbortController();
    const cancelled = behind(controller.signal) as Promise<void>;
    const other = behind() as Promise<void>;
    controller.abort(new Error('cancelled by the client'));
    await expect(cancelled).rejects.toThrow('cancelled by the client');
    expect(await stateOf(other)).toBe('pending');
    read();
    expect(await stateOf(other)).toBe('resolved');
    // Already aborted: rejected at once, whether behind or not.
    await expect(behind(controller.signal)).rejects.toThrow('cancelled by the client');
  });
});
