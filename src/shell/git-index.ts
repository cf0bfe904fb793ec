/**
 * The submodules a repository's index names (its gitlinks, mode 160000), read from the
 * index file itself: `git status` and `git diff` look into each, with its own config,
 * wherever it lies in the worktree and whether or not `.gitmodules` names it. Versions
 * 2, 3 and 4 of the format, SHA-1 and SHA-256, and a split index's shared part. An
 * index the reader cannot follow gives what it read so far.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRegular } from './regular-file';

/** An index larger than this is not read (64 MiB: some 600,000 files). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/** The most shared indexes of a split index read. */
const MAX_SHARED_INDEXES = 4;

/** The most gitlinks taken from one index. */
const MAX_GITLINKS = 1024;

const GITLINK = 0o160000;

/** What was read of an index file, kept while the file stays the same. */
const cache = new Map<string, { readonly stamp: string; readonly links: readonly string[] }>();

/**
 * The paths (relative to the worktree) of the gitlinks in git directory `gitDir`'s
 * index and in the shared indexes a split index keeps beside it; `complete` false when
 * some were left unread (an index over 64 MiB or that is a link, more than four shared
 * indexes, more than 1024 gitlinks): a command can make any of them to hide one more.
 */
export function gitlinks(gitDir: string): { readonly links: string[]; readonly complete: boolean } {
  const found = new Set<string>();
  const files = ['index'];
  let complete = true;
  try {
    for (const name of readdirSync(gitDir)) {
      // Git keeps one or two; more are a command's making, not read.
      if (!name.startsWith('sharedindex.')) continue;
      if (files.length <= MAX_SHARED_INDEXES) files.push(name);
      else complete = false;
    }
  } catch {
    return { links: [], complete };
  }
  for (const name of files) {
    const read = linksOf(join(gitDir, name));
    if (read === 'unread') complete = false;
    else {
      for (const link of read) {
        if (found.size >= MAX_GITLINKS && !found.has(link)) {
          complete = false;
          break;
        }
        found.add(link);
      }
    }
  }
  return { links: [...found], complete };
}

/** The gitlinks of one index file, read again only when it changed. */
function linksOf(file: string): readonly string[] | 'unread' {
  const known = cache.get(file);
  let stamp = '';
  let large = false;
  // What changed, or is too large, is all that is read: its stamp is looked at first.
  const read = readRegular(file, MAX_INDEX_BYTES, true, (info) => {
    stamp = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
    large = info.size > MAX_INDEX_BYTES;
    return large || known?.stamp === stamp;
  });
  // Too large to read, or a link (git follows it; this reader leaves the writable
  // folders by no link): what it names is not known.
  if (large || lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true) {
    return 'unread';
  }
  if (read === undefined) return known?.stamp === stamp ? known.links : [];
  const links = parseGitlinks(read.bytes);
  cache.set(file, { stamp, links });
  if (cache.size > 256) cache.delete(cache.keys().next().value!);
  return links;
}

/**
 * The paths of the gitlinks in an index file's `bytes`: tried with SHA-1's hash length,
 * then SHA-256's, the first reading that walks every entry kept.
 */
export function parseGitlinks(bytes: Buffer): string[] {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'DIRC') return [];
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return [];
  let partial: string[] = [];
  for (const hashLength of [20, 32]) {
    const read = entriesOf(bytes, version, hashLength);
    if (read.whole) return read.links;
    if (read.links.length > partial.length) partial = read.links;
  }
  return partial;
}

function entriesOf(
  bytes: Buffer,
  version: number,
  hashLength: number,
): { links: string[]; whole: boolean } {
  const count = bytes.readUInt32BE(8);
  const links: string[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const fixed = 40 + hashLength + 2;
    if (at + fixed > bytes.length) return { links, whole: false };
    const mode = bytes.readUInt32BE(at + 24);
    const flags = bytes.readUInt16BE(at + 40 + hashLength);
    let pathAt = at + fixed;
    // An extended entry (version 3 and later) carries two more bytes of flags.
    if (version >= 3 && (flags & 0x4000) !== 0) pathAt += 2;
    let path: Buffer;
    let end: number;
    if (version === 4) {
      // The path is the previous one less N bytes, then what follows up to a NUL.
      let strip = 0;
      let byte: number;
      let p = pathAt;
      do {
        if (p >= bytes.length) return { links, whole: false };
        byte = bytes[p++]!;
        strip = (strip << 7) | (byte & 0x7f);
        if ((byte & 0x80) !== 0) strip += 1;
      } while ((byte & 0x80) !== 0);
      const nul = bytes.indexOf(0, p);
      if (nul < 0 || strip > previous.length) return { links, whole: false };
      path = Buffer.concat([previous.subarray(0, previous.length - strip), bytes.subarray(p, nul)]);
      end = nul + 1;
    } else {
      const nul = bytes.indexOf(0, pathAt);
      if (nul < 0) return { links, whole: false };
      path = bytes.subarray(pathAt, nul);
      // Padded with NULs to a multiple of eight bytes from the entry's start.
      end = at + Math.ceil((nul + 1 - at) / 8) * 8;
    }
    // The flags carry the path's length (up to 0xFFF): a reading off its track misses it.
    if ((flags & 0xfff) !== Math.min(path.length, 0xfff) || path.length === 0) {
      return { links, whole: false };
    }
    if ((mode & 0o170000) === GITLINK) links.push(path.toString('utf8'));
    previous = path;
    at = end;
  }
  return { links, whole: endsWithExtensions(bytes, at, hashLength) };
}

/**
 * Whether what follows the entries at `at` is extensions (a signature and a size each)
 * and then the file's hash, to its last byte: what a right reading of the entries meets.
 */
function endsWithExtensions(bytes: Buffer, at: number, hashLength: number): boolean {
  let here = at;
  while (here + 8 <= bytes.length - hashLength) {
    here += 8 + bytes.readUInt32BE(here + 4);
  }
  return here === bytes.length - hashLength;
}
