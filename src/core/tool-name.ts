import { goQuote } from './quote';

/** MCP's rule for a tool's name: 1 to 128 characters, each of A–Z, a–z, 0–9, `_`, `-`, `.`. */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const MAX_LENGTH = 128;
const ALLOWED = /[A-Za-z0-9_.-]/;

/**
 * What keeps `name` from being a tool name MCP accepts, with the fix, or undefined when
 * it is one: `"read file" is not a tool name MCP accepts: " " is not allowed (only
 * A-Z, a-z, 0-9, _, - and ., 1 to 128 characters); rename it, e.g. "read_file"`.
 */
export function toolNameProblem(name: string): string | undefined {
  if (MCP_TOOL_NAME.test(name)) return undefined;
  const rule = 'only A-Z, a-z, 0-9, _, - and ., 1 to 128 characters';
  const chars = [...name];
  let why: string;
  if (chars.length === 0) why = 'it is empty';
  else {
    const wrong = [...new Set(chars.filter((c) => !ALLOWED.test(c)))];
    why =
      wrong.length > 0
        ? `${wrong.slice(0, 5).map(goQuote).join(', ')} ${wrong.length === 1 ? 'is' : 'are'} not allowed`
        : `it is ${chars.length} characters long`;
  }
  const suggestion = suggestedName(name);
  const fix = suggestion === undefined ? 'rename it' : `rename it, e.g. ${goQuote(suggestion)}`;
  return `${goQuote(name)} is not a tool name MCP accepts: ${why} (${rule}); ${fix}`;
}

/** The name with each run of other characters as `_`, cut to 128; undefined when nothing is left. */
function suggestedName(name: string): string | undefined {
  const replaced = name
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_LENGTH);
  return replaced === '' ? undefined : replaced;
}
