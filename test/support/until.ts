/**
 * Resolves once `done()` holds, looking every `every` ms; fails saying it waited in vain
 * for `what` once `ms` have passed.
 */
export async function until(
  done: () => boolean,
  what: string,
  ms = 10_000,
  every = 10,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
