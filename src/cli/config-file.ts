import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { errorMessage } from './public-api';
import { CliError, ExitCode } from './exit-codes';

/** A configuration file as read: its JSON, how errors name it, and its folder. */
export interface ConfigFile {
  readonly value: unknown;
  /** The path as errors show it (relative to the working directory when inside it). */
  readonly shown: string;
  /** Its folder: relative `cwd`s are resolved against it, and servers without one start there. */
  readonly dir: string;
}

/**
 * Reads an `mcpServers` configuration file (`--config`): JSON, with the comments VS
 * Code's `mcp.json` may hold (`//` and `/* *\/`) allowed. Throws a {@link CliError} (bad
 * arguments) naming the file: one that cannot be read, or text that is not JSON (with
 * the line and column).
 */
export function readConfigFile(path: string, cwd: string = process.cwd()): ConfigFile {
  const file = resolve(cwd, path);
  const shown = relative(cwd, file).startsWith('..') ? file : relative(cwd, file) || file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --config ${shown}: cannot read it: ${errorMessage(error)}`,
    );
  }
  const json = withoutComments(text);
  try {
    return { value: JSON.parse(json) as unknown, shown, dir: dirname(file) };
  } catch (error) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown}: not valid JSON${where(json, error)}: ${errorMessage(error)}`,
    );
  }
}

/** ` at line L, column C` when the parser's message gives a position. */
function where(text: string, error: unknown): string {
  const match = /position (\d+)/.exec(errorMessage(error));
  if (match === null) return '';
  const before = text.slice(0, Number(match[1]));
  const lines = before.split('\n');
  return ` at line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1}`;
}

/**
 * The text with its `//` and `/* *\/` comments replaced by spaces (strings kept as they
 * are), so that positions in errors stay where they were.
 */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
