import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW, O_NOCTTY } = constants;

/**
 * The first `limit` bytes of the plain file at `path`, and what it is; undefined for
 * anything else or nothing. Opened without blocking, so that a FIFO a command put in
 * the file's place (between a look at it and this read) cannot hold the server, and,
 * with `noFollow`, not through a link. `unless` may say, from what the file is, that it
 * need not be read (undefined then too).
 */
export function readRegular(
  path: string,
  limit: number,
  noFollow = false,
  unless?: (info: Stats) => boolean,
): { readonly bytes: Buffer; readonly info: Stats } | undefined {
  let fd: number;
  try {
    // Never a terminal of the server's, should a device be reached.
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (noFollow ? O_NOFOLLOW : 0));
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || unless?.(info) === true) return undefined;
    const bytes = Buffer.alloc(Math.min(limit, info.size));
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return { bytes: bytes.subarray(0, read), info };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
