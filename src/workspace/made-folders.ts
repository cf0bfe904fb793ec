import { promises as fsPromises } from 'node:fs';
import { type ConfinedWalk, type Dir, type FolderNotes } from './confined-walk';

/**
 * The folders one call's walks made on the way to its file, each with its parent kept
 * open: {@link MadeFolders.failed} removes them again, last made first, through those
 * handles (where Linux's /proc lets a handle name a folder; elsewhere by path, as the
 * walk goes there), each only while it is empty.
 */
export class MadeFolders implements FolderNotes {
  readonly #made: { readonly parent: Dir; readonly name: string }[] = [];

  /** `alone()` tells whether no other call that may make or fill folders is under way. */
  constructor(
    private readonly walker: ConfinedWalk,
    private readonly alone: () => boolean,
    private readonly ended: () => void,
  ) {}

  /** Notes that `name` was made in `parent`, which stays open until {@link end}. */
  add(parent: Dir, name: string): boolean {
    this.#made.push({ parent, name });
    return true;
  }

  /**
   * The call failed: removes the folders made, last first (one no longer empty, or gone,
   * is left), unless another call is under way, which may be about to fill one of them.
   */
  async failed(): Promise<void> {
    for (const { parent, name } of [...this.#made].reverse()) {
      // Asked before each: a call may begin while the one before is removed.
      if (!this.alone()) return;
      await fsPromises.rmdir(this.walker.at(parent, name)).catch(() => undefined);
    }
  }

  /** The call is over: closes the parents kept open. */
  async end(): Promise<void> {
    this.ended();
    const made = this.#made.splice(0);
    await Promise.all(made.map(({ parent }) => parent.handle.close().catch(() => undefined)));
  }
}

/** The calls of one root that may make folders (writes, appends), counted while under way. */
export class FolderMaking {
  #under = 0;

  constructor(private readonly walker: ConfinedWalk) {}

  /** What notes the folders a call makes; `end()` it once the call is over. */
  begin(): MadeFolders {
    this.#under += 1;
    return new MadeFolders(
      this.walker,
      () => this.#under === 1,
      () => (this.#under -= 1),
    );
  }
}
