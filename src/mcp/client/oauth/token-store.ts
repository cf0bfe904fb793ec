import {
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { AgentToolError } from '../../../core';

/**
 * Whose grant, for which server: `endpoint` is the MCP server's URL, `subject` names
 * the user ("" when one user signs in per endpoint).
 */
export interface TokenKey {
  readonly endpoint: string;
  readonly subject: string;
}

/**
 * What a store keeps for one key: the tokens as the SDK handed them over (access token,
 * refresh token, issuer, ...) and the client registration they were issued to; a refresh
 * needs both.
 */
export interface StoredGrant {
  readonly tokens?: StoredOAuthTokens;
  readonly clientInformation?: StoredOAuthClientInformation;
  /** When the tokens were saved (ISO 8601), for a host that wants to expire them early. */
  readonly savedAt?: string;
}

/**
 * Where grants persist. `load` resolves `undefined` when nothing is stored for the key;
 * `save` replaces what is stored and is durable when it resolves. Either may be called
 * concurrently for different keys.
 */
export interface TokenStore {
  load(key: TokenKey): Promise<StoredGrant | undefined>;
  save(key: TokenKey, grant: StoredGrant): Promise<void>;
}

/** The text form of a key, used by the stores as a map key. */
export function tokenKeyId(key: TokenKey): string {
  return JSON.stringify([key.endpoint, key.subject]);
}

/** Checks a key and fills a missing subject with "". */
export function tokenKey(key: {
  readonly endpoint: string | URL;
  readonly subject?: string;
}): TokenKey {
  const endpoint = String(key?.endpoint ?? '');
  if (endpoint === '') {
    throw new AgentToolError(
      'CONNECTION',
      'mcp: token key needs the endpoint: the MCP server URL the tokens are for',
    );
  }
  const subject = key.subject ?? '';
  if (typeof subject !== 'string') {
    throw new AgentToolError(
      'CONNECTION',
      'mcp: token key subject must be a string ("" for one user)',
    );
  }
  return { endpoint, subject };
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A {@link TokenStore} in memory, for tests and short-lived hosts: grants are kept per
 * full key (endpoint and subject) and copied on the way in and out, so a caller changing
 * an object it passed or got back changes nothing stored.
 */
export class MemoryTokenStore implements TokenStore {
  private readonly grants = new Map<string, StoredGrant>();

  load(key: TokenKey): Promise<StoredGrant | undefined> {
    const grant = this.grants.get(tokenKeyId(key));
    return Promise.resolve(grant === undefined ? undefined : copy(grant));
  }

  save(key: TokenKey, grant: StoredGrant): Promise<void> {
    this.grants.set(tokenKeyId(key), copy(grant));
    return Promise.resolve();
  }
}
