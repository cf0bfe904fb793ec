import type * as Crypto from 'node:crypto';

// node:crypto costs some 5 ms to load; a server needs random ids only once clients come.
let crypto: typeof Crypto | undefined;

function nodeCrypto(): typeof Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return (crypto ??= require('node:crypto') as typeof Crypto);
}

/** `bytes` random bytes as lower-case hex, from node:crypto's generator. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString('hex');
}

/** A random RFC 9562 version 4 UUID. */
export function randomUuid(): string {
  return nodeCrypto().randomUUID();
}
