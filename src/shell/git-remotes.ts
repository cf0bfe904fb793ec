/**
 * The repositories on this machine a git directory's remotes name, for the repository
 * guard: a push to one runs its hooks, so the guard checks them as it checks the
 * repository.
 */
import { type Dir, opendirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { smallText } from './folder-reads';
import { parseGitConfig } from './git-config';
import { readRegular } from './regular-file';

/**
 * The URLs of the remotes git directory `dir` names: its config's `remote.*.url` and
 * `pushurl`, and the older `remotes/*` (`URL:` lines) and `branches/*` files; `unread`
 * is called when a bound leaves some of those files unread. A config past its bound is
 * moved aside whole (repository-items), its remotes with it.
 */
export function localRemotes(
  dir: string,
  within: (path: string) => boolean,
  unread: () => void,
): string[] {
  const urls: string[] = [];
  const config = smallText(join(dir, 'config'), 1024 * 1024, true);
  const parsed = config === undefined ? undefined : parseGitConfig(config);
  if (parsed?.ok === true) {
    for (const entry of parsed.entries) {
      if (entry.section !== 'remote' || entry.value === undefined) continue;
      if (entry.key === 'url' || entry.key === 'pushurl') urls.push(entry.value);
    }
  }
  for (const folder of ['remotes', 'branches']) {
    const path = join(dir, folder);
    if (!within(path)) continue;
    const names = entriesUpTo(path, MAX_REMOTE_FILES + 1);
    if (names.length > MAX_REMOTE_FILES) unread();
    for (const name of names.slice(0, MAX_REMOTE_FILES)) {
      const read = readRegular(join(path, name), MAX_REMOTE_FILE_BYTES, true);
      if (read !== undefined && read.info.size > MAX_REMOTE_FILE_BYTES) unread();
      const text = read?.bytes.toString('utf8') ?? '';
      if (folder === 'remotes') {
        for (const line of text.split('\n')) {
          const url = /^URL:\s*(.*?)\s*$/.exec(line)?.[1];
          if (url !== undefined && url !== '') urls.push(url);
        }
      } else {
        const url = text.split('\n')[0]?.split('#')[0]?.trim();
        if (url !== undefined && url !== '') urls.push(url);
      }
    }
  }
  return urls;
}

/** The most files of a repository's `remotes` or `branches` folder read, and of each file. */
const MAX_REMOTE_FILES = 64;
const MAX_REMOTE_FILE_BYTES = 8192;

/** The names of the first `limit` entries of folder `dir`, read no further. */
function entriesUpTo(dir: string, limit: number): string[] {
  const names: string[] = [];
  let opened: Dir | undefined;
  try {
    opened = opendirSync(dir);
    for (
      let entry = opened.readSync();
      entry !== null && names.length < limit;
      entry = opened.readSync()
    ) {
      names.push(entry.name);
    }
  } catch {
    // what was read is what there is
  } finally {
    opened?.closeSync();
  }
  return names;
}

/**
 * The folder a remote's `url` names on this machine (a path, or a `file://` URL), a
 * relative one taken from `base`; undefined for another machine's (`host:path`, a
 * scheme other than `file`).
 */
export function localPath(url: string, base: string): string | undefined {
  if (url.startsWith('file://')) {
    const rest = url.slice('file://'.length);
    const path = rest.startsWith('/') ? rest : rest.slice(rest.indexOf('/'));
    try {
      return decodeURIComponent(path);
    } catch {
      return path;
    }
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*::?\/\//.test(url) || url.includes('::')) return undefined;
  // `host:path` is another machine's unless a slash comes before the colon.
  const colon = url.indexOf(':');
  if (colon >= 0 && !url.slice(0, colon).includes('/')) return undefined;
  return resolve(base, url);
}
