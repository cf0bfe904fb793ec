import { nodeCrypto } from '../core';

// node:crypto loads on first use: a server needs random ids only once clients come.

/** `bytes` random bytes as lower-case hex, from node:crypto's generator. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString('hex');
}

/** A random RFC 9562 version 4 UUID. */
export function randomUuid(): string {
  return nodeCrypto().randomUUID();
}

/** `bytes` random bytes from node:crypto's generator. */
export function randomBytes(bytes: number): Uint8Array {
  return nodeCrypto().randomBytes(bytes);
}

/** The SHA-256 digest of `text` (UTF-8), base64url. */
export function sha256Base64Url(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('base64url');
}
