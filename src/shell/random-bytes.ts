import type * as Crypto from 'node:crypto';

// node:crypto costs some 3 ms to load: the workspace's start needs none of it, its
// first command (the shell's marker, its limits' group, its sandbox lease) does.
let loaded: typeof Crypto | undefined;

/** `size` random bytes from node:crypto, which loads on the first call. */
export function randomBytes(size: number): Buffer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  loaded ??= require('node:crypto') as typeof Crypto;
  return loaded.randomBytes(size);
}
