import { type Server } from '@modelcontextprotocol/server';
import { notifyResourceUpdated, type PrimitiveHost } from './primitives';

/** A kind of primitive whose list can change beside the tools. */
export type PrimitiveKind = 'prompts' | 'resources';

/**
 * The SDK instances pinned to a connection (one per 2025-era session or stdio
 * connection) and the other listeners of a server's changes (an HTTP endpoint's
 * 2026-07-28 listen streams): who is told when the tools, prompts or resources listed
 * change, or a resource does.
 */
export class ServedConnections {
  readonly #servers = new Set<Server>();
  readonly #listListeners = new Set<() => void>();
  readonly #primitiveListeners = new Set<(kind: PrimitiveKind) => void>();
  readonly #updateListeners = new Set<(uri: string) => Promise<void>>();

  /** The instances pinned to connections now. */
  get servers(): ReadonlySet<Server> {
    return this.#servers;
  }

  add(server: Server): void {
    this.#servers.add(server);
  }

  delete(server: Server): void {
    this.#servers.delete(server);
  }

  /** Runs `listener` whenever the tool list changes; returns its remover. */
  onListChanged(listener: () => void): () => void {
    this.#listListeners.add(listener);
    return () => this.#listListeners.delete(listener);
  }

  /** Runs `listener` whenever the prompts or the resources listed change; returns its remover. */
  onPrimitivesChanged(listener: (kind: PrimitiveKind) => void): () => void {
    this.#primitiveListeners.add(listener);
    return () => this.#primitiveListeners.delete(listener);
  }

  /** Runs `listener` for each resource that changed; returns its remover. */
  onResourceUpdated(listener: (uri: string) => Promise<void>): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /** Tells the listeners and every connected client that listens that the tool list changed. */
  toolsChanged(): void {
    for (const listener of this.#listListeners) listener();
    for (const server of this.#servers) {
      if (server.transport === undefined) continue;
      server.sendToolListChanged().catch(() => undefined);
    }
  }

  /** Tells the listeners and every connected client that listens that `kind`'s list changed. */
  primitivesChanged(kind: PrimitiveKind): void {
    for (const listener of this.#primitiveListeners) listener(kind);
    for (const server of this.#servers) {
      if (server.transport === undefined) continue;
      const sent =
        kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
      sent.catch(() => undefined);
    }
  }

  /**
   * Tells the connections subscribed to `uri` (each while its caller may still read it)
   * and the listeners that it changed; resolves once they are told.
   */
  async resourceUpdated(host: PrimitiveHost, uri: string): Promise<void> {
    await Promise.all([
      notifyResourceUpdated(host, this.#servers, uri),
      ...[...this.#updateListeners].map((listener) => listener(uri)),
    ]);
  }
}
