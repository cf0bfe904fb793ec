// What the driver writes to the persistent bash for one command, and the markers of the
// lines bash writes back (see bash-driver.ts, which reads this format in bash).
import { statelessCommandWord } from './stateless-command';

/**
 * Every control marker is this prefix and MARKER_HEX_DIGITS random hex digits (made by
 * `BashProcess`, fresh for each line it expects).
 */
export const MARKER_PREFIX = '__AGENTTOOL_';
export const MARKER_HEX_DIGITS = 32;
export const MARKER_LENGTH = MARKER_PREFIX.length + MARKER_HEX_DIGITS;
/** Hex digits of each of the two lengths in a command's head (see commandMessage). */
export const COUNT_DIGITS = 8;
/** A command's head: its start marker and two lengths, each after a space. */
export const HEAD_LENGTH = MARKER_LENGTH + 2 * (1 + COUNT_DIGITS);

/**
 * What the driver writes for one command: its head (the start marker, then the length of
 * what follows up to the NUL in code points and in bytes, each as a space and eight hex
 * digits), the command's first word's line (a colon, then the word when the command's
 * text shows it cannot change the shell's state, see `__agenttool_arm` in
 * bash-driver.ts), the command and a NUL, which the waiting job reads (see
 * `__agenttool_next`), then the end marker's line (`E <marker>`), which the shell reads
 * only once the job has ended. A job killed before
 * it took all of its command leaves the rest on the shell's input, where its head or
 * command text comes before that `E` line: the shell takes it and answers that the
 * command did not run, and the next command finds the input in step. The job prints
 * `<startMarker> S <pgid>` before the command runs, with its traps set: an interrupt
 * sent on that news is not lost. The shell then prints `<endMarker> E <status>`.
 * Standard error is merged into standard output; standard input is /dev/null, since the
 * shell's own input is this channel. The command must hold no NUL.
 */
export function commandMessage(command: string, startMarker: string, endMarker: string): string {
  // The word's line starts with a colon, so that no read trims it away (see
  // __agenttool_next: a read-only IFS).
  const text = `:${statelessCommandWord(command) ?? ''}\n${command}`;
  const bytes = Buffer.byteLength(text, 'utf8');
  return `${startMarker} ${countField(codePoints(text, bytes))} ${countField(bytes)}${text}\0E ${endMarker}\n`;
}

/** A length as the head carries it; 0 (read up to the NUL) past what its digits hold. */
function countField(count: number): string {
  return (count <= MAX_COUNT ? count : 0).toString(16).padStart(COUNT_DIGITS, '0');
}
const MAX_COUNT = 16 ** COUNT_DIGITS - 1;

/**
 * The code points of `text` as UTF-8 carries it (`bytes` long): a lone surrogate is one
 * (encoded as U+FFFD), a pair is one.
 */
function codePoints(text: string, bytes: number): number {
  if (bytes === text.length) return bytes;
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      pairs++;
      i++;
    }
  }
  return text.length - pairs;
}
