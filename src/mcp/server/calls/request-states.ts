import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { AgentToolError, isJsonObject } from '../../../core';

/** What a request state names: the run it resumes, whose it is, and which tool it calls. */
export interface StateClaim {
  /** The run's single-use key on the instance that holds it. */
  readonly run: string;
  /** A digest of the owner: who may answer (the subject, or the connection). */
  readonly owner: string;
  readonly tool: string;
}

/** What a request state turned out to be once read. */
export type ReadState =
  /** Not a state this server minted (altered, forged), or past its expiry. */
  | { readonly kind: 'invalid' }
  /** Genuine, minted by another instance, which is not reachable from here. */
  | { readonly kind: 'elsewhere' }
  | { readonly kind: 'here'; readonly claim: StateClaim };

/**
 * How a parked run's request state is made and read back: signed (HMAC-SHA256, the
 * SDK's `createRequestStateCodec`) with a key of this process's own, or with the key
 * instances behind a load balancer share (see `ScaleOutOptions`), so that an altered or
 * forged state is told from a genuine one that names no waiting run.
 */
export interface RequestStates {
  mint(claim: StateClaim): Promise<string>;
  read(state: string): Promise<ReadState>;
}

/**
 * What a signed request state carries: the instance that parked the run, the run's key,
 * a digest of its owner, and its tool.
 */
interface StatePayload {
  readonly i: string;
  readonly r: string;
  readonly o: string;
  readonly t: string;
}

// The codec binds nothing to the request (no `bind`), so it never reads the context.
const UNBOUND = {} as ServerContext;

/**
 * Request states signed with a key (the SDK's HMAC-SHA256 codec): a state names the
 * instance holding the run, the run's single-use key, its owner and its tool, so a state
 * that was not minted with the key (forged, altered, or past its expiry) is told from a
 * genuine one. A server alone signs with a key of its own process; instances behind a
 * load balancer share one, so any instance can tell where the answers go.
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

  mint(claim: StateClaim): Promise<string> {
    return this.#codec.mint({ i: this.#instance, r: claim.run, o: claim.owner, t: claim.tool });
  }

  async read(state: string): Promise<ReadState> {
    const payload = await this.open(state);
    if (payload === undefined) return { kind: 'invalid' };
    if (payload.i !== this.#instance) return { kind: 'elsewhere' };
    return { kind: 'here', claim: { run: payload.r, owner: payload.o, tool: payload.t } };
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
    if (
      !isJsonObject(payload) ||
      typeof payload.i !== 'string' ||
      typeof payload.r !== 'string' ||
      typeof payload.o !== 'string' ||
      typeof payload.t !== 'string'
    ) {
      return undefined;
    }
    return { i: payload.i, r: payload.r, o: payload.o, t: payload.t };
  }
}
