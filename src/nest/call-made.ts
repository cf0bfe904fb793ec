import { type Hooked } from './di-hooks';
import { type CallBuild } from './sessions';

/**
 * The instances the translated providers made, whichever app they belong to: theirs to
 * close, so the server does not close them too.
 */
export const madeHere = new WeakSet<object>();

/** An instance a call made (a transient one), with the transient instances made for it. */
interface CallMade {
  readonly entry: Hooked;
  readonly children: readonly object[];
}

/** What the translated factories made during calls, by instance. */
const callMade = new WeakMap<object, CallMade>();

/** Notes that a call made `value` (a transient instance), with what was made for it. */
export function noteCallMade(value: object, entry: Hooked, children: readonly object[]): void {
  callMade.set(value, { entry, children });
}

/**
 * The transient instances `build` made for a consumer (its arguments, and what was made
 * for them), in order of creation: taken out of the call's, to be the consumer's.
 */
export function claim(deps: readonly unknown[], build: CallBuild): Hooked[] {
  const claimed: Hooked[] = [];
  const take = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const at = build.made.indexOf(value);
    const made = callMade.get(value);
    if (at < 0 || made === undefined) return;
    build.made.splice(at, 1);
    for (const child of made.children) take(child);
    claimed.push(made.entry);
  };
  for (const dep of deps) take(dep);
  return claimed.sort((a, b) => a.seq - b.seq);
}
