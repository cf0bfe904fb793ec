// The bundle's rewrites of its dependencies' code replace exact texts: each must be found
// once, as written, or the build stops and says which text it did not find.
'use strict';

/**
 * `code` with each `[from, to]` of `replacements` made, in order, each `from` found
 * exactly once; otherwise an error that names `where` (the file), `what` (the code
 * expected) and `lookAt` (the place that says what to do).
 */
function replaceEachOnce(code, replacements, { where, what, lookAt }) {
  let out = code;
  for (const [from, to] of replacements) {
    const found = out.split(from).length - 1;
    if (found !== 1) {
      throw new Error(
        `${where}: expected ${what} to contain once (found ${found}):\n${from}\nlook at ${lookAt} again`,
      );
    }
    out = out.replace(from, () => to);
  }
  return out;
}

module.exports = { replaceEachOnce };
