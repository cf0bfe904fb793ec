import type { Call } from './context';

/**
 * Throws when `call`'s arguments name one that `known` does not (a typo, or another
 * tool's argument: `max_byte`, a `timeout` meant in ms): the contract's decoding ignores
 * unknown arguments, which leaves the answer changed unnoticed (the default read for
 * `max_byte`, the default timeout for `timeout`). For a tool whose answer would then not
 * be what was asked for. Reads the call's decoded `value`, else its `args`; arguments
 * that are not a JSON object are left to the decoding to refuse; `ignored` names are
 * taken without a word and not listed (what another tool's callers send that changes
 * nothing here: a `description` of the command). The message:
 * `invalid arguments: <tool> takes no "<name>"[, "<name>"]; its arguments are <known>`
 * (`it takes none`).
 */
export function refuseUnknownArguments(
  call: Call,
  tool: string,
  known: readonly string[],
  ignored: readonly string[] = [],
): void {
  let given: unknown = call.value;
  if (given === undefined) {
    try {
      given = JSON.parse(call.args === '' ? '{}' : call.args);
    } catch {
      return; // the decoding says what is wrong with them
    }
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return;
  const unknown = Object.keys(given).filter(
    (name) => !known.includes(name) && !ignored.includes(name),
  );
  if (unknown.length === 0) return;
  throw new Error(
    `invalid arguments: ${tool} takes no ${unknown.map((name) => JSON.stringify(name)).join(', ')}; ${known.length === 0 ? 'it takes none' : `its arguments are ${known.join(', ')}`}`,
  );
}
