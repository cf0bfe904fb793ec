import { CliError, ExitCode } from './exit-codes';

/**
 * Splits a command line the way a POSIX shell splits words, without expanding
 * anything: whitespace separates words, single quotes keep everything literally,
 * double quotes keep everything but `\"` and `\\`, a backslash outside quotes escapes
 * the next character. `--stdio "node server.js --flag 'a b'"` is four words.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --stdio ${JSON.stringify(line)}: unterminated ${quote} quote; close it or drop it`,
    );
  }
  if (inWord) words.push(word);
  return words;
}
