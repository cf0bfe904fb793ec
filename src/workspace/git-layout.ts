// What a git repository's own folder outside any `.git` keeps from the file tools: the
// layout of a bare repository, which git takes as one wherever it finds a `HEAD`.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { foldName } from 'agenttool/shell';
import { quotePath } from './short-path';

/** For a file of a bare repository's layout: the others that make git take its folder. */
const GIT_LAYOUT_PARTNERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['head', ['config', 'commondir', 'hooks']],
  ['config', ['HEAD']],
  ['config.worktree', ['HEAD']],
  ['commondir', ['HEAD']],
]);

/** Folders of a bare repository's layout whose files git runs or reads its config from. */
const GIT_LAYOUT_FOLDERS: ReadonlySet<string> = new Set(['hooks', 'worktrees']);

/**
 * Why writing `components` (below `realRoot`) is refused as part of a git repository's
 * own folder outside any `.git` (a bare repository's layout, which git takes as a
 * repository wherever it finds a `HEAD`, and reads a config of): a `config` or a
 * `commondir` beside a `HEAD`, a `HEAD` beside them or beside a `hooks`, or anything in
 * a `hooks` or `worktrees` beside a `HEAD`, at any depth (a bare repository deep in the
 * tree, or the folder a `.git` link or `--separate-git-dir` names). Git on the host would
 * run such a hook, or what such a config names, outside the sandbox. A `.git` folder's
 * own are judged by `writeProtection`.
 */
export function gitLayoutProtection(
  realRoot: string,
  components: readonly string[],
): string | undefined {
  for (let i = 0; i < components.length; i++) {
    const name = foldName(components[i]!);
    const last = i === components.length - 1;
    // A Map: a file named `constructor` is no key of it, as it would be of an object's.
    const partners = last ? GIT_LAYOUT_PARTNERS.get(name) : undefined;
    const held = GIT_LAYOUT_FOLDERS.has(name) ? ['HEAD'] : partners;
    const parent = components.slice(0, i);
    const above = parent.at(-1);
    if (held === undefined || (above !== undefined && foldName(above) === '.git')) continue;
    const beside = held.find((partner) => exists(join(realRoot, ...parent, partner)));
    if (beside === undefined) continue;
    const folder = parent.length === 0 ? 'the root' : quotePath(parent.join('/'));
    const what = last ? '' : ` (its ${components[i]})`;
    return `${folder} holds a ${beside}, as a git repository's own folder does${what}: git on the host would take it as a repository, and run its hooks, or what its config names, outside the sandbox`;
  }
  return undefined;
}

/** Whether anything is at `path`: a link counts, dangling or not (see below). */
function exists(path: string): boolean {
  // Git takes a HEAD that links to `refs/heads/main` before that branch exists.
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // a part on the way that is no folder: the walk says so
  }
}
