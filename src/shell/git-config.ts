// A git configuration file read as git reads it (config.c's parser), to find the entries
// with which git would run a command, or read another file, when the user runs git:
// the repository guard removes those a sandboxed command added.

/** One `name = value` (or bare `name`) of a configuration file. */
export interface GitConfigEntry {
  /** The section, lower-cased (`core`, `remote`); empty for a key before any section. */
  readonly section: string;
  /** The subsection as written (`origin` of `[remote "origin"]`), if any. */
  readonly subsection: string | undefined;
  /** The key, lower-cased. */
  readonly key: string;
  /** Where the entry's text begins (its key's first character) in the file's text. */
  readonly start: number;
  /** Where it ends: the newline that closes it (or the text's end), not included. */
  readonly end: number;
  /** Its value as git reads it; undefined for a key alone (true). */
  readonly value: string | undefined;
}

/** What {@link parseGitConfig} read: every entry, or where git would refuse the file. */
export type ParsedGitConfig =
  | { readonly ok: true; readonly entries: readonly GitConfigEntry[] }
  | { readonly ok: false; readonly line: number };

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
const isAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);
const isKeyChar = (c: string | undefined) => c !== undefined && /^[A-Za-z0-9-]$/.test(c);

/**
 * Every entry of a git configuration file's `text`, as git's own parser reads it: a
 * header (`[section]`, `[section "subsection"]`, `[section.subsection]`) may share its
 * line with an entry, a value runs to its line's end (a backslash before the newline
 * continues it, a quote keeps `#` and `;` in it), `\r\n` counts as a newline. Where git
 * would refuse the file (and so run nothing it says), `ok` is false with the line.
 */
export function parseGitConfig(text: string): ParsedGitConfig {
  let at = text.startsWith('\ufeff') ? 1 : 0;
  let line = 1;
  const next = (): string | undefined => {
    if (at >= text.length) return undefined;
    let c = text[at++]!;
    if (c === '\r' && text[at] === '\n') c = text[at++]!;
    if (c === '\n') line++;
    return c;
  };
  const entries: GitConfigEntry[] = [];
  let section = '';
  let subsection: string | undefined;
  let comment = false;
  const fail = (): ParsedGitConfig => ({ ok: false, line });
  for (;;) {
    const c = next();
    if (c === undefined) return { ok: true, entries };
    if (c === '\n') {
      comment = false;
      continue;
    }
    if (comment || isSpace(c)) continue;
    if (c === '#' || c === ';') {
      comment = true;
      continue;
    }
    if (c === '[') {
      const header = readHeader(next);
      if (header === undefined || header.name === '') return fail();
      const dot = header.name.indexOf('.');
      section = dot < 0 ? header.name : header.name.slice(0, dot);
      subsection = header.subsection ?? (dot < 0 ? undefined : header.name.slice(dot + 1));
      continue;
    }
    if (!isAlpha(c)) return fail();
    const start = at - 1;
    let key = c.toLowerCase();
    let d = next();
    while (isKeyChar(d)) {
      key += d!.toLowerCase();
      d = next();
    }
    while (d === ' ' || d === '\t') d = next();
    let value: string | undefined;
    if (d !== undefined && d !== '\n') {
      if (d !== '=') return fail();
      value = readValue(next);
      if (value === undefined) return fail();
    }
    // The entry ends before the newline that closed it (or at the text's end).
    const end = at > 0 && text[at - 1] === '\n' ? at - (text[at - 2] === '\r' ? 2 : 1) : at;
    entries.push({ section, subsection, key, start, end, value });
  }
}

/** The rest of a `[...]` header after its `[`, or undefined where git refuses it. */
function readHeader(
  next: () => string | undefined,
): { readonly name: string; readonly subsection: string | undefined } | undefined {
  let name = '';
  for (;;) {
    let c = next();
    if (c === undefined) return undefined;
    if (c === ']') return { name, subsection: undefined };
    if (isSpace(c)) {
      while (isSpace(c)) {
        if (c === '\n') return undefined;
        c = next();
      }
      if (c !== '"') return undefined;
      let subsection = '';
      for (;;) {
        let s = next();
        if (s === undefined || s === '\n') return undefined;
        if (s === '"') break;
        if (s === '\\') {
          s = next();
          if (s === undefined || s === '\n') return undefined;
        }
        subsection += s;
      }
      return next() === ']' ? { name, subsection } : undefined;
    }
    if (!isKeyChar(c) && c !== '.') return undefined;
    name += c.toLowerCase();
  }
}

/**
 * Reads a value after its `=` to its end, as git's parse_value does (quotes, escapes,
 * comments, white space at its ends); undefined where git refuses it.
 */
function readValue(next: () => string | undefined): string | undefined {
  let quote = false;
  let comment = false;
  let value = '';
  // Where unquoted white space at the end began, to be trimmed.
  let trim: number | undefined;
  for (;;) {
    const c = next();
    if (c === undefined || c === '\n') {
      if (quote) return undefined;
      return trim === undefined ? value : value.slice(0, trim);
    }
    if (comment) continue;
    if (!quote && (c === ' ' || c === '\t' || c === '\v' || c === '\f' || c === '\r')) {
      trim ??= value.length;
      // Git keeps unquoted white space inside a value as a space.
      if (value.length > 0) value += ' ';
      continue;
    }
    if (!quote && (c === ';' || c === '#')) {
      comment = true;
      continue;
    }
    trim = undefined;
    if (c === '\\') {
      // The text's end reads as a newline, as git reads it.
      const escaped = next() ?? '\n';
      if (escaped === '\n') continue;
      const meant = ESCAPES[escaped];
      if (meant === undefined) return undefined;
      value += meant;
      continue;
    }
    if (c === '"') {
      quote = !quote;
      continue;
    }
    value += c;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  t: '\t',
  b: '\b',
  n: '\n',
  '"': '"',
  '\\': '\\',
};

/**
 * Keys git reads as data, never as a command to run or a file to read: what `git init`,
 * `git clone`, `git remote`, `git branch` and everyday settings write. Any other key in
 * a configuration a sandboxed command wrote is taken as one that may run something.
 * `*` admits every key of the section.
 */
const DATA_KEYS: Readonly<Record<string, readonly string[]>> = {
  core: [
    'repositoryformatversion',
    'filemode',
    'bare',
    'logallrefupdates',
    'ignorecase',
    'precomposeunicode',
    'symlinks',
    'autocrlf',
    'eol',
    'safecrlf',
    'quotepath',
    'checkstat',
    'trustctime',
    'compression',
    'loosecompression',
    'bigfilethreshold',
    'abbrev',
    'sharedrepository',
    'untrackedcache',
    'splitindex',
    'commitgraph',
    'multipackindex',
    'preloadindex',
    'warnambiguousrefs',
    'protecthfs',
    'protectntfs',
    'longpaths',
  ],
  extensions: [
    'objectformat',
    'compatobjectformat',
    'refstorage',
    'worktreeconfig',
    'preciousobjects',
    'partialclone',
    'noop',
  ],
  user: ['name', 'email', 'useconfigonly'],
  author: ['name', 'email'],
  committer: ['name', 'email'],
  init: ['defaultbranch'],
  pull: ['rebase', 'ff'],
  push: ['default', 'autosetupremote', 'followtags'],
  fetch: ['prune', 'prunetags'],
  merge: ['ff', 'conflictstyle', 'renames'],
  diff: ['renames', 'algorithm', 'mnemonicprefix', 'noprefix', 'context', 'colormoved'],
  status: ['showuntrackedfiles', 'short', 'branch'],
  log: ['date', 'decorate', 'follow'],
  commit: ['verbose'],
  rebase: ['autosquash', 'autostash', 'updaterefs'],
  gc: ['auto', 'autodetach', 'autopacklimit'],
  i18n: ['commitencoding', 'logoutputencoding'],
  lfs: ['repositoryformatversion'],
  advice: ['*'],
  color: ['*'],
};

/** The same for sections with a subsection (`[remote "origin"]`). */
const DATA_KEYS_OF_SUBSECTIONS: Readonly<Record<string, readonly string[]>> = {
  remote: [
    'url',
    'pushurl',
    'fetch',
    'push',
    'tagopt',
    'prune',
    'prunetags',
    'mirror',
    'skipdefaultupdate',
    'skipfetchall',
    'promisor',
    'partialclonefilter',
  ],
  branch: ['remote', 'merge', 'rebase', 'pushremote', 'description'],
  submodule: ['url', 'active', 'branch'],
  color: ['*'],
};

/**
 * Whether git may run a command, or read another file, because of `entry` (a
 * `core.fsmonitor`, a hook path, a filter, a pager, an include...): true for every key
 * not known to be data (see the lists above).
 */
export function mayRunSomething(entry: GitConfigEntry): boolean {
  const lists = entry.subsection === undefined ? DATA_KEYS : DATA_KEYS_OF_SUBSECTIONS;
  // Own keys only: a section named `constructor` or `__proto__` (a command's to write)
  // would otherwise find Object's and stop the check before what follows it.
  const keys = Object.hasOwn(lists, entry.section) ? lists[entry.section] : undefined;
  return !(keys !== undefined && (keys.includes('*') || keys.includes(entry.key)));
}

/** `section.subsection.key`, as `git config` names an entry. */
export function entryName(entry: GitConfigEntry): string {
  return entry.subsection === undefined
    ? `${entry.section}.${entry.key}`
    : `${entry.section}.${entry.subsection}.${entry.key}`;
}
