import { type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { randomUuid } from '../../random';

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  /** Its message's length as JSON. */
  readonly bytes: number;
}

/** The most bytes (of messages, as JSON) one session's store keeps by default. */
export const SESSION_EVENT_BYTES = 1024 * 1024;

/**
 * A bounded in-memory event store for one HTTP session, so a client can resume an SSE
 * stream with `Last-Event-ID`. Event ids are random (one session cannot guess
 * another's); the oldest events are dropped past `limit` events or `maxBytes` of
 * messages (the newest is always kept), so that a session's results, read long ago,
 * do not stay by the thousand.
 */
export class SessionEventStore implements EventStore {
  readonly #events: StoredEvent[] = [];
  readonly #limit: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(limit = 1000, maxBytes = SESSION_EVENT_BYTES) {
    this.#limit = limit;
    this.#maxBytes = maxBytes;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${randomUuid()}`;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ id, streamId, message, bytes });
    this.#bytes += bytes;
    while (
      this.#events.length > 1 &&
      (this.#events.length > this.#limit || this.#bytes > this.#maxBytes)
    ) {
      this.#bytes -= this.#events.shift()?.bytes ?? 0;
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.find((event) => event.id === eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.#events.findIndex((event) => event.id === lastEventId);
    const last = this.#events[index];
    if (last === undefined) return '';
    for (const event of this.#events.slice(index + 1)) {
      // Priming events carry no message; they are not replayed.
      if (event.streamId === last.streamId && Object.keys(event.message).length > 0) {
        await send(event.id, event.message);
      }
    }
    return last.streamId;
  }
}
