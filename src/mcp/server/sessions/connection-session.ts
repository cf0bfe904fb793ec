import { randomHex } from '../../random';
import { type SessionLease } from '../session';
import { type OpenedSession } from '../server-options';
import { type SessionBinding } from './instance';

/** A connection's one session, opened with the connection. */
export class ConnectionSession implements SessionBinding {
  readonly #lease: SessionLease;
  // Parked calls of one connection are answered by that connection only.
  #owner: string | undefined;
  readonly resumable: boolean;
  readonly lasting: boolean;
  /** A connection's 2026-07-28 listens are checked and followed (stdio's: see serveStdio). */
  readonly listens = true;

  constructor(opened: OpenedSession, resumable: boolean) {
    this.#lease = { ...opened, release: () => undefined };
    this.resumable = resumable;
    // A stateless request's connection is its one call's session.
    this.lasting = !opened.session.endsWithCall;
  }

  lease(): SessionLease {
    return this.#lease;
  }

  owner(): string {
    this.#owner ??= randomHex(8);
    return this.#owner;
  }
}
