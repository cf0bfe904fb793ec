import { type EventStore, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { randomUuid } from '../../random';

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
}

/**
 * A bounded in-memory event store for one HTTP session, so a client can resume an SSE
 * stream with `Last-Event-ID`. Event ids are random (one session cannot guess
 * another's); the oldest events are dropped past `limit`.
 */
export class SessionEventStore implements EventStore {
  readonly #events: StoredEvent[] = [];
  readonly #limit: number;

  constructor(limit = 1000) {
    this.#limit = limit;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${randomUuid()}`;
    this.#events.push({ id, streamId, message });
    if (this.#events.length > this.#limit) this.#events.shift();
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
