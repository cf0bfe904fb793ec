import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AgentToolError, isJsonObject } from '../../../core';
import { type RequestStates } from '../round-trips';

/** What a signed request state carries: the instance that parked the run, and its key. */
interface StatePayload {
  readonly i: string;
  readonly r: string;
}

// The codec binds nothing to the request (no `bind`), so it never reads the context.
const UNBOUND = {} as ServerContext;

/**
 * Request states signed with the key every instance shares (the SDK's HMAC-SHA256
 * codec): a state names the instance holding the run and the run's single-use key, so
 * any instance can tell where the answers go, and a state that was not minted with the
 * key (forged, altered, or past its expiry) names nothing.
 */
export class SignedRequestStates implements RequestStates {
  readonly #codec: RequestStateCodec<StatePayload>;
  readonly #instance: string;

  /** `ttlSeconds`: how long a state is honoured (at least the abandon timeout). */
  constructor(key: string | Uint8Array, instance: string, ttlSeconds: number) {
    try {
      this.#codec = createRequestStateCodec<StatePayload>({ key, ttlSeconds });
    } catch (error) {
      throw new AgentToolError(
        'INVALID_TOOL_SET',
        'mcp: scale-out: requestStateKey must be at least 32 bytes (e.g. 64 hex digits from `openssl rand -hex 32`)',
        { cause: error },
      );
    }
    this.#instance = instance;
  }

  mint(run: string): Promise<string> {
    return this.#codec.mint({ i: this.#instance, r: run });
  }

  async read(state: string): Promise<string | undefined> {
    const payload = await this.open(state);
    return payload?.i === this.#instance ? payload.r : undefined;
  }

  /** The instance a genuine state names; undefined for anything else. */
  async ownerOf(state: string): Promise<string | undefined> {
    return (await this.open(state))?.i;
  }

  async open(state: string): Promise<StatePayload | undefined> {
    let payload: unknown;
    try {
      payload = await this.#codec.verify(state, UNBOUND);
    } catch {
      return undefined;
    }
    if (!isJsonObject(payload) || typeof payload.i !== 'string' || typeof payload.r !== 'string') {
      return undefined;
    }
    return { i: payload.i, r: payload.r };
  }
}
