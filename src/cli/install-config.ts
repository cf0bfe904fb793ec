import type * as Crypto from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type * as Jsonc from './jsonc';
import { errorMessage } from './public-api';
import { CliError, ExitCode } from './exit-codes';

/** What writing an entry into a configuration file did, or would do. */
export interface ConfigEdit {
  /** The file written (a symbolic link's target). */
  readonly file: string;
  /** True when the file did not exist. */
  readonly created: boolean;
  /** True when an entry of the same name was there (and is replaced). */
  readonly replaced: boolean;
  /** True when the file already held exactly this entry: nothing is written. */
  readonly unchanged: boolean;
  /** The copy of the file as it was, when it is changed; undefined otherwise. */
  readonly backup: string | undefined;
  /** The file's text after the edit. */
  readonly text: string;
}

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

/**
 * Sets the value at `path` in the JSON (with comments) file `file` to `entry`, keeping
 * everything else as it was, comments and formatting included (only the object the
 * entry goes in may be laid out anew). Unless `dryRun`, the file as it was is copied to
 * `<file>.bak` first, and the new text is written to a temporary file beside it and
 * renamed over it, so that the file is never half written. A file that is not JSON,
 * whose top level is not an object, or where something other than an object stands on
 * the path, is refused with what is wrong and where, and left alone.
 */
export function writeEntry(
  file: string,
  path: readonly string[],
  entry: Record<string, unknown>,
  dryRun: boolean,
): ConfigEdit {
  const target = existsSync(file) ? realpathSync(file) : file;
  const created = !existsSync(target);
  let text = '';
  if (!created) {
    if (!statSync(target).isFile()) refuse(target, 'is not a file');
    try {
      text = readFileSync(target, 'utf8');
    } catch (error) {
      refuse(target, `cannot be read: ${errorMessage(error)}`);
    }
  }
  const { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode } = jsonc();
  const errors: Jsonc.ParseError[] = [];
  const tree =
    text.trim() === '' ? undefined : parseTree(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split('\n').length;
    refuse(
      target,
      `is not valid JSON: ${printParseErrorCode(first.error)} at line ${line}; fix it, or give another file with --config-file`,
    );
  }
  if (tree !== undefined && tree.type !== 'object') {
    refuse(target, `holds a JSON ${tree.type}, not an object`);
  }
  for (let depth = 1; depth < path.length; depth++) {
    const node =
      tree === undefined ? undefined : findNodeAtLocation(tree, [...path.slice(0, depth)]);
    if (node !== undefined && node.type !== 'object') {
      refuse(
        target,
        `has "${path.slice(0, depth).join('.')}" as a ${node.type}, where an object of servers belongs`,
      );
    }
  }
  const existing = tree === undefined ? undefined : findNodeAtLocation(tree, [...path]);
  const replaced = existing !== undefined;
  const updated = applyEdits(text, modify(text, [...path], entry, FORMATTING));
  const after = updated.endsWith('\n') ? updated : `${updated}\n`;
  const unchanged = replaced && JSON.stringify(nodeValue(text, path)) === JSON.stringify(entry);
  const backup = created || unchanged ? undefined : `${target}.bak`;
  if (!dryRun && !unchanged) {
    try {
      mkdirSync(dirname(target), { recursive: true });
      if (backup !== undefined) copyFileSync(target, backup);
      writeAtomically(target, after, created ? 0o644 : statSync(target).mode & 0o777);
    } catch (error) {
      refuse(target, `cannot be written: ${errorMessage(error)}`);
    }
  }
  return { file: target, created, replaced, unchanged, backup, text: after };
}

/** The value at `path` as plain JSON; undefined when absent or written with comments. */
function nodeValue(text: string, path: readonly string[]): unknown {
  const { findNodeAtLocation, parseTree } = jsonc();
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const node = tree === undefined ? undefined : findNodeAtLocation(tree, [...path]);
  if (node === undefined) return undefined;
  try {
    return JSON.parse(text.slice(node.offset, node.offset + node.length)) as unknown;
  } catch {
    // Comments or trailing commas inside the entry: it differs from what is written.
    return undefined;
  }
}

/**
 * jsonc-parser's parts, loaded by the command that edits a file: its module builds some
 * 1,200 strings of indentation as it loads (220 KB), which every other command's start
 * would pay.
 */
function jsonc(): typeof Jsonc {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return require('./jsonc') as typeof Jsonc;
}

function writeAtomically(file: string, text: string, mode: number): void {
  // node:crypto is loaded here, not at the command's start: serving never needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  const { randomBytes } = require('node:crypto') as typeof Crypto;
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { mode, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function refuse(file: string, why: string): never {
  throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: install: ${file} ${why}`);
}
