/**
 * Text a server or a tool chose, as the command shows it to a person. A terminal acts
 * on control characters: escape sequences retitle the window, write the clipboard
 * (OSC 52), make a link that shows one address and opens another (OSC 8), or move the
 * cursor back to write over what was shown; a carriage return alone does the last too;
 * and the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) show text
 * in another order than it reads (an address that leads elsewhere than it shows). They
 * are written as `\uXXXX` instead.
 */

// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/g;
// The same, but tabs and line ends (a CR only before an LF).
const CONTROLS_BUT_LINES =
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]|\r(?!\n)/g;

function escaped(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` on one line: every control character written as `\uXXXX`, line ends too. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROLS, escaped);
}

/** `text` as lines: control characters written as `\uXXXX`, but tabs and line ends. */
export function terminalSafeLines(text: string): string {
  return text.replace(CONTROLS_BUT_LINES, escaped);
}

/**
 * What a command prints of a result on its standard output: shown safe on a terminal,
 * left whole where it goes to a file or a pipe (`> out.txt`, `| jq`), which take it as
 * data.
 */
export function forOutput(text: string, stream: { isTTY?: boolean }): string {
  return stream.isTTY === true ? terminalSafeLines(text) : text;
}
