import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** How long the files must stay quiet after an edit before a reload (ms). */
export const DEFAULT_DEBOUNCE_MS = 100;

/**
 * Watches a set of files through their folders (an editor that saves by writing a new
 * file and renaming it over the old one replaces the inode a file watcher would hold),
 * and calls `onChange` once the files have been quiet for `debounceMs` after a burst of
 * edits. {@link FileWatch.watch} replaces the set; {@link FileWatch.close} stops it all.
 */
export class FileWatch {
  readonly #onChange: (files: readonly string[]) => void;
  readonly #debounceMs: number;
  readonly #watchers = new Map<string, FSWatcher>();
  #files = new Set<string>();
  #changed = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(onChange: (files: readonly string[]) => void, debounceMs = DEFAULT_DEBOUNCE_MS) {
    this.#onChange = onChange;
    this.#debounceMs = debounceMs;
  }

  /** The files watched now. */
  get files(): readonly string[] {
    return [...this.#files];
  }

  /** Watches `files` (absolute paths) from now on, and no others. */
  watch(files: Iterable<string>): void {
    if (this.#closed) return;
    this.#files = new Set(files);
    const folders = new Set([...this.#files].map((file) => dirname(file)));
    for (const [folder, watcher] of this.#watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.#watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) =>
          this.#seen(folder, name),
        );
        // A folder removed while watched: its files come back through the next load.
        watcher.on('error', () => {
          watcher.close();
          this.#watchers.delete(folder);
        });
        this.#watchers.set(folder, watcher);
      } catch {
        // A folder that cannot be watched (gone already): nothing to reload from there.
      }
    }
  }

  /** Stops watching and drops a pending change. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #seen(folder: string, name: string | Buffer | null): void {
    if (this.#closed) return;
    // Without a name (some platforms), any watched file of the folder may have changed.
    const matches = [...this.#files].filter(
      (file) => dirname(file) === folder && (name === null || basename(file) === String(name)),
    );
    if (matches.length === 0) return;
    for (const file of matches) this.#changed.add(file);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const changed = [...this.#changed];
      this.#changed.clear();
      this.#onChange(changed);
    }, this.#debounceMs);
  }
}
