import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { errorMessage } from './public-api';
import { CliError, ExitCode } from './exit-codes';

/** The largest configuration file read: 10 MB, far above any real one. */
export const MAX_CONFIG_BYTES = 10 * 1024 * 1024;

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
    // A pipe or a device would be read without end; a huge file would be held whole.
    const info = statSync(file);
    if (!info.isFile()) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --config ${shown}: it is not a regular file (a folder, a pipe or a device); give the configuration's JSON file`,
      );
    }
    if (info.size > MAX_CONFIG_BYTES) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: --config ${shown}: it is ${info.size} bytes; a configuration file is at most ${MAX_CONFIG_BYTES}`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: --config ${shown}: cannot read it: ${errorMessage(error)}`,
    );
  }
  // A byte-order mark, which some editors write at the start, is not JSON.
  const json = withoutComments(text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text);
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
      // Up to the next string or comment at once: a character at a time, a large file
      // would cost a string per character.
      let next = i + 1;
      while (next < text.length && text[next] !== '"' && text[next] !== '/') next++;
      out += text.slice(i, next);
      i = next;
    }
  }
  return out;
}
