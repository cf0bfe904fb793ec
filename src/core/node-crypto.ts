import type * as Crypto from 'node:crypto';

// node:crypto costs some 3-5 ms to load, and a start-up needs it only once a hash or a
// random id is asked for (a client's first call, a handle minted), if ever.
let loaded: typeof Crypto | undefined;

/** node:crypto, loaded on the first call. */
export function nodeCrypto(): typeof Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return (loaded ??= require('node:crypto') as typeof Crypto);
}
