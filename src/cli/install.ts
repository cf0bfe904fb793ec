import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, extname, resolve } from 'node:path';
import { type Writable } from 'node:stream';
import { Command, CommanderError, type Option } from 'commander';
import type * as ShellEntry from 'agenttool/shell';
import { closestNames } from './closest';
import { CliError, ExitCode } from './exit-codes';
import {
  CLIENT_SPECS,
  type ClientName,
  currentPlace,
  type Launch,
  type Place,
  type Scope,
} from './install-clients';
import { writeEntry } from './install-config';
import { broadRootProblem, type WorkspaceFlags, workspaceShellOptions } from './workspace';
import {
  type ConfigFlags,
  configOptions,
  type ServeFlags,
  serveOptions,
  serveOptionsFrom,
  workspaceOptions,
} from './serve-flags';
import { packageVersion } from './version';

/** What `agenttool install` takes. */
export interface InstallOptions {
  readonly client: ClientName;
  /** The `serve` or `workspace` arguments, as typed (`serve` may be left out). */
  readonly words: readonly string[];
  /** The server's name in the configuration; by default from the module file or `workspace`. */
  readonly name?: string | undefined;
  /** Another configuration file than the client's own. */
  readonly configFile?: string | undefined;
  readonly scope?: Scope | undefined;
  /** The project folder of the `project` and `local` scopes; the working directory by default. */
  readonly projectDir?: string | undefined;
  /** Print what would be written, and write nothing. */
  readonly dryRun?: boolean | undefined;
  /** How the server is started: the running node and command by default. */
  readonly launcher?: (() => Launch) | undefined;
  readonly place?: Place | undefined;
  readonly cwd?: string | undefined;
  readonly out: Writable;
}

/** Options whose values are paths: made absolute, so that any folder the client starts in works. */
const PATH_OPTIONS = new Set([
  '--record',
  '--request-state-key-file',
  '--auth-verifier',
  '--allow-write',
  '--deny-read',
  '--config',
]);

/**
 * Writes the server `serve <module>` (or `workspace [dir]`) into an MCP client's
 * configuration, under `name`: the command is the running node and agenttool (or npx,
 * when agenttool runs from npx's cache) and every path in the arguments is absolute, so
 * the client can start it from any folder. Keeps the rest of the file (see
 * {@link writeEntry}), replaces an entry of the same name, and prints what it wrote.
 */
export function install(options: InstallOptions): void {
  const spec = CLIENT_SPECS[options.client];
  const scope = options.scope ?? spec.scopes[0]!;
  if (!spec.scopes.includes(scope)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: ${spec.title} has no ${scope} configuration; give --scope ${spec.scopes.join(' or ')}`,
    );
  }
  const cwd = options.cwd ?? process.cwd();
  const place = options.place ?? currentPlace(resolve(cwd, options.projectDir ?? '.'));
  const { args, name: derived } = serveArguments(options.words, cwd, place.home);
  const name = options.name ?? derived;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: --name ${JSON.stringify(name)}: give 1 to 64 letters, digits, "_", "-" or "."`,
    );
  }
  const launch = (options.launcher ?? agenttoolLauncher)();
  const entry = spec.entry({ command: launch.command, args: [...launch.args, ...args] });
  const file =
    options.configFile === undefined ? spec.file(scope, place) : resolve(cwd, options.configFile);
  const path = spec.path(scope, name, place);
  const dryRun = options.dryRun === true;
  const edit = writeEntry(file, path, entry, dryRun);
  const where = `${edit.file} (${path.slice(0, -1).join(' › ')})`;
  const what = edit.unchanged
    ? `${where} already holds the server ${JSON.stringify(name)} as it would be written; nothing to do`
    : `${dryRun ? 'would write' : 'wrote'} the server ${JSON.stringify(name)} to ${where}${edit.replaced ? ', replacing the entry of that name' : ''}${edit.created ? ', a new file' : ''}`;
  options.out.write(`agenttool: install: ${what}:\n${JSON.stringify(entry, null, 2)}\n`);
  if (!dryRun && edit.backup !== undefined) {
    options.out.write(`agenttool: install: the file as it was: ${edit.backup}\n`);
  }
  if (!dryRun && !edit.unchanged) options.out.write(`agenttool: install: ${spec.after}\n`);
}

/**
 * The arguments of the server's command line, every path absolute, checked as `serve`
 * and `workspace` check them; and the name the entry gets by default.
 */
export function serveArguments(
  words: readonly string[],
  cwd: string,
  home: string = homedir(),
): { args: string[]; name: string } {
  const [first, ...rest] = words;
  if (first === undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      'agenttool: install: give what to serve: serve dist/app.module.js, or workspace /path/to/project',
    );
  }
  const command = first === 'serve' || first === 'workspace' ? first : 'serve';
  const given = first === command ? rest : words;
  const parser =
    command === 'serve'
      ? configOptions(serveOptions(new Command('serve').argument('[module-file]')))
      : serveOptions(workspaceOptions(new Command('workspace').argument('[dir]')));
  const args: string[] = [];
  let positional: string | undefined;
  for (let i = 0; i < given.length; i++) {
    const word = given[i]!;
    if (word.startsWith('-') && word !== '-') {
      const [flag = word, inline] = word.split(/=(.*)/s, 2);
      const option = parser.options.find((o: Option) => o.long === flag || o.short === flag);
      if (option === undefined) {
        throw new CliError(
          ExitCode.BAD_ARGUMENTS,
          `agenttool: install: ${command} has no option ${flag} (agenttool ${command} --help lists them)`,
        );
      }
      if (flag === '--http' || flag === '--redis') {
        throw new CliError(
          ExitCode.BAD_ARGUMENTS,
          `agenttool: install: ${flag}: a client starts the server it is given over stdio; to use an HTTP server, start agenttool ${command} ${flag} yourself and give the client its URL`,
        );
      }
      args.push(flag);
      const takes = option.required || option.optional;
      const values: string[] = inline !== undefined ? [inline] : [];
      if (takes && inline === undefined) {
        while (i + 1 < given.length && !given[i + 1]!.startsWith('-')) {
          values.push(given[++i]!);
          if (!option.variadic) break;
        }
      }
      const absolute = PATH_OPTIONS.has(flag) ? values.map((v) => resolve(cwd, v)) : values;
      if (inline !== undefined) args[args.length - 1] = `${flag}=${absolute[0] ?? ''}`;
      else args.push(...absolute);
      continue;
    }
    if (positional !== undefined) {
      // `install <client> bogus app.js`: the word before the file is the wrong one.
      if (first !== command && positional === first && !isFile(resolve(cwd, first))) {
        throw notWhatToServe(first, word);
      }
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: install: unexpected ${JSON.stringify(word)}; ${command} takes one ${command === 'serve' ? 'module file' : 'folder'}`,
      );
    }
    positional = word;
  }
  // The same check `serve` and `workspace` make of their options (a missing value, a
  // bad choice), before anything is written.
  parser
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .action(() => undefined);
  try {
    parser.parse([...(positional === undefined ? [] : [positional]), ...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: install: ${command}: ${error.message.replace(/^error: /, '')}`,
      );
    }
    throw error;
  }
  const flags = parser.opts<ServeFlags & WorkspaceFlags & ConfigFlags>();
  const target =
    command === 'workspace'
      ? workspaceDir(positional, cwd, home)
      : positional === undefined && flags.config !== undefined
        ? { arg: undefined, name: basename(flags.config, extname(flags.config)) || 'agenttool' }
        : moduleFile(positional, cwd);
  // The values too, as the command checks them when the client starts it: a value it
  // would refuse is refused now, not written into the client's configuration.
  serveOptionsFrom(flags, { stdout: process.stdout, stderr: process.stderr });
  if (flags.stateless === true) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: ${command}: --stateless applies to --http only, which a client does not start`,
    );
  }
  if (command === 'workspace') workspaceShellOptions(flags, cwd);
  return {
    args: [command, ...(target.arg === undefined ? [] : [target.arg]), ...args],
    name: target.name,
  };
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/**
 * The error for a first word that is neither `serve` nor `workspace`, nor a file, with
 * what to serve after it (`install cursor bogus app.js`).
 */
function notWhatToServe(first: string, next: string): CliError {
  const near = closestNames(first, ['serve', 'workspace'], 1);
  return new CliError(
    ExitCode.BAD_ARGUMENTS,
    `agenttool: install: ${JSON.stringify(first)} is not what to serve: give serve <module-file> or workspace [dir] after the client${near.length > 0 ? ` (did you mean ${near[0]}?)` : ''}, e.g. ${near[0] ?? 'serve'} ${next}`,
  );
}

function moduleFile(spec: string | undefined, cwd: string): { arg: string; name: string } {
  if (spec === undefined) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      'agenttool: install: serve needs the compiled module file, e.g. serve dist/app.module.js',
    );
  }
  const hash = spec.lastIndexOf('#');
  const path = hash > 0 ? spec.slice(0, hash) : spec;
  const file = resolve(cwd, path);
  if (!isFile(file)) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: module file ${path} not found; give the compiled .js file the client should serve`,
    );
  }
  if (/\.[cm]?tsx?$/.test(file) && !file.endsWith('.d.ts')) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: ${path} is TypeScript; a client starts agenttool serve, which loads compiled JavaScript: build it first and give the .js file`,
    );
  }
  const real = realpathSync(file);
  const stem = basename(real, extname(real)).replace(/\.module$/, '');
  return {
    arg: hash > 0 ? `${real}${spec.slice(hash)}` : real,
    name: stem.replace(/[^A-Za-z0-9_.-]/g, '-') || 'agenttool',
  };
}

function workspaceDir(
  dir: string | undefined,
  cwd: string,
  home: string,
): { arg: string; name: string } {
  const folder = resolve(cwd, dir ?? '.');
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: install: workspace folder ${dir ?? '.'} not found; give the folder the workspace serves`,
    );
  }
  // The folder is written out in full, so the rule the command applies to a folder left
  // out is applied here, where it was left out.
  const tooBroad = broadRootProblem(folder, dir === undefined, home);
  if (tooBroad !== undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: install: ${tooBroad}`);
  }
  // Loaded here, as the workspace command loads it: install's other paths do without.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  const shellEntry = require('agenttool/shell') as typeof ShellEntry;
  const held = shellEntry.protectedFolderProblem(folder);
  if (held !== undefined) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: install: the workspace folder ${held}`);
  }
  return { arg: realpathSync(folder), name: 'workspace' };
}

/**
 * How a client starts this agenttool: the node running it and its own script, both
 * absolute (a client's PATH may hold no node, or another); when agenttool runs from
 * npx's cache, which npm may empty, `npx -y agenttool@<this version>` instead.
 */
export function agenttoolLauncher(): Launch {
  const script = process.argv[1];
  const real = script !== undefined && existsSync(script) ? realpathSync(script) : undefined;
  if (real === undefined || /[\\/]_npx[\\/]/.test(real)) {
    return { command: 'npx', args: ['-y', `agenttool@${packageVersion()}`] };
  }
  return { command: process.execPath, args: [real] };
}
