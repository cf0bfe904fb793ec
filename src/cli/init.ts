import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Command, Option } from 'commander';
import { type CliIo } from './call';
import { CliError, EXIT_CODES_HELP, ExitCode } from './exit-codes';
import { kindOf, mergeManifest, readManifest } from './init-package';
import {
  claudeCodeConfig,
  GITIGNORE,
  GREET,
  GREET_TEST,
  MODULE_BUILT,
  type ModuleKind,
  packageJson,
  readme,
  TSCONFIG,
  vscodeConfig,
} from './init-templates';
import { packageVersion } from './version';

/** What `agenttool init` takes besides the folder. */
export interface InitFlags {
  readonly module?: ModuleKind;
  readonly esm?: boolean;
  readonly cjs?: boolean;
  readonly name?: string;
  readonly force?: boolean;
}

/** One file of the project: where it goes, what it holds, and what it is for. */
interface Planned {
  readonly path: string;
  readonly text: string;
  readonly what: string;
}

/** An npm package name: lower case, URL-safe, optionally scoped. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** What a folder may hold and still count as empty: a repository just made by `git init`. */
const IGNORED_ENTRIES = new Set(['.git']);

/** Registers `agenttool init [dir]` on the program. */
export function registerInit(program: Command, io: CliIo, setCode: (code: ExitCode) => void): void {
  program
    .command('init')
    .description(
      'Make a new project: a first tool and its test, scripts to develop, build, serve and test it, and the Claude Code and VS Code configurations that start it.',
    )
    .argument('[dir]', 'the folder to make it in, made if missing (default: the working directory)')
    .addOption(
      new Option('--module <kind>', 'ES modules or CommonJS (default: esm)')
        .choices(['esm', 'cjs'])
        .conflicts(['esm', 'cjs']),
    )
    .addOption(new Option('--esm', 'an ES module project: --module esm').conflicts('cjs'))
    .addOption(new Option('--cjs', 'a CommonJS project: --module cjs'))
    .option('--name <name>', 'the package name (default: the folder name)')
    .option(
      '--force',
      'make it in a folder that is not empty: add the files it lacks and keep every file it has (package.json gains the scripts and dependencies it lacks)',
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .action((dir: string | undefined, flags: InitFlags) => {
      setCode(runInit(dir, flags, io));
    });
}

/**
 * Makes a project in `dir` (the working directory by default): writes each file, never
 * over one that exists; prints what it made and the commands to run next on stdout,
 * and each file it kept on stderr.
 */
export function runInit(
  dir: string | undefined,
  flags: InitFlags,
  io: Pick<CliIo, 'stdout' | 'stderr'>,
  cwd: string = process.cwd(),
): ExitCode {
  const root = resolve(cwd, dir ?? '.');
  // An empty name is the working directory, named so in what is said.
  const shown = dir === undefined || dir === '' ? '.' : dir;
  const present = entriesOf(root, shown);
  if (present.length > 0 && flags.force !== true) {
    const listed = present.slice(0, 5).join(', ') + (present.length > 5 ? ', ...' : '');
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool init: ${shown} is not empty (it holds ${listed}); give a new or empty folder, or add --force to add the files it lacks and keep every file it has`,
    );
  }
  const asked =
    flags.module ?? (flags.esm === true ? 'esm' : flags.cjs === true ? 'cjs' : undefined);
  const manifestFile = join(root, 'package.json');
  const existing = exists(manifestFile) ? readExistingManifest(manifestFile) : undefined;
  const kind = chooseKind(asked, existing);
  const name = packageName(flags.name, existing, root);
  // Named as `agenttool install` names a module's server (the file's stem), so that an
  // install into the same file replaces this entry rather than adding a second one.
  const server = basename(MODULE_BUILT, '.js');
  const manifest = packageJson(name, kind, packageVersion());
  const files: Planned[] = [
    {
      path: 'package.json',
      text: `${JSON.stringify(manifest, null, 2)}\n`,
      what: 'its scripts: dev, build, start, test',
    },
    {
      path: 'tsconfig.json',
      text: TSCONFIG,
      what: 'src/ to dist/, with the two decorator settings',
    },
    { path: 'src/greet.ts', text: GREET, what: 'a first tool, greet, and its module' },
    { path: 'src/greet.test.ts', text: GREET_TEST, what: 'its test, through agenttool/testing' },
    {
      path: '.mcp.json',
      text: claudeCodeConfig(server),
      what: 'Claude Code starts it: npm start, once built',
    },
    {
      path: '.vscode/mcp.json',
      text: vscodeConfig(server),
      what: 'VS Code starts it: npm start, once built',
    },
    {
      path: '.gitignore',
      text: GITIGNORE,
      what: 'node_modules/, dist/ and the backups agenttool install makes (*.bak)',
    },
    { path: 'README.md', text: readme(name, kind), what: 'what each script does' },
  ];
  refuseBlockedPaths(root, files, shown);
  const merge = (mine: Record<string, unknown>) =>
    mergeManifest(
      mine,
      {
        type: manifest.type,
        scripts: manifest.scripts,
        dependencies: manifest.dependencies,
        devDependencies: manifest.devDependencies,
        engines: manifest.engines,
        allowScripts: manifest.allowScripts,
      },
      'package.json',
    );
  const { made, notes } = writeFiles(root, files, existing, merge, shown);
  const into = root === cwd ? '' : cdLine(cwd, root, dir ?? '.');
  io.stdout.write(
    [
      `agenttool init: made ${name}, ${kind === 'esm' ? 'an ES module' : 'a CommonJS'} project, in ${shown === '.' ? 'this folder' : `the folder ${shown}`}:`,
      ...made,
      '',
      'Next:',
      ...[...(into === '' ? [] : [into]), ...nextCommands()].map((command) => `  ${command}`),
      '',
    ].join('\n'),
  );
  for (const note of notes) io.stderr.write(`agenttool init: ${note}\n`);
  return ExitCode.OK;
}

/**
 * Refuses, before anything is written, a project path that a file of the folder stands
 * in the way of (a file named `src` where `src/greet.ts` goes).
 */
function refuseBlockedPaths(root: string, files: readonly Planned[], shown: string): void {
  for (const file of files) {
    const parts = file.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      const path = join(root, ...parts.slice(0, i));
      if (exists(path) && !statSync(path).isDirectory()) {
        throw new CliError(
          ExitCode.BAD_ARGUMENTS,
          `agenttool init: ${shown}/${folder} is a file, where ${file.path} goes; move it, or init another folder`,
        );
      }
    }
  }
}

/**
 * Writes each file that does not exist (exclusively: never over one that appeared since),
 * merges an existing package.json, and keeps every other existing file. Returns the
 * lines of what it made, and the notes of what it kept.
 */
function writeFiles(
  root: string,
  files: readonly Planned[],
  existing: Record<string, unknown> | undefined,
  merge: (mine: Record<string, unknown>) => { text: string; notes: string[] },
  shown: string,
): { made: string[]; notes: string[] } {
  const notes: string[] = [];
  const made: string[] = [];
  const written: string[] = [];
  const width = Math.max(...files.map((f) => f.path.length)) + 2;
  try {
    mkdirSync(root, { recursive: true });
    for (const file of files) {
      const target = join(root, ...file.path.split('/'));
      const line = `  ${file.path.padEnd(width)}${file.what}`;
      if (file.path === 'package.json' && existing !== undefined) {
        const merged = merge(existing);
        replaceFile(target, merged.text);
        notes.push(...merged.notes);
        made.push(`${line} (yours, with what it lacked added)`);
        written.push(file.path);
      } else if (exists(target)) {
        notes.push(`kept ${file.path}: it exists, and agenttool init does not overwrite a file`);
        if (file.path === 'tsconfig.json') notes.push(...decoratorSettingsMissing(target));
        made.push(`${line} (yours, kept)`);
      } else {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, file.text, { flag: 'wx' });
        made.push(line);
        written.push(file.path);
      }
    }
  } catch (error) {
    const done = written.length === 0 ? 'nothing written' : `written: ${written.join(', ')}`;
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool init: cannot write in ${shown}: ${(error as Error).message} (${done})`,
    );
  }
  return { made, notes };
}

/** A note for each decorator setting a kept tsconfig.json does not visibly turn on. */
function decoratorSettingsMissing(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return ['experimentalDecorators', 'emitDecoratorMetadata']
    .filter((setting) => !new RegExp(`"${setting}"\\s*:\\s*true`).test(text))
    .map(
      (setting) =>
        `tsconfig.json does not set "${setting}": true, which agenttool's decorators need; add it to compilerOptions`,
    );
}

/** The commands to run in the project once it is made, as the README's first screen shows them. */
export function nextCommands(): string[] {
  return [
    'npm install',
    'npm test',
    'npm run build',
    `npx agenttool call ${MODULE_BUILT} greet '{"name": "Ada"}'`,
  ];
}

/** The folder's entries that count (not `.git`), sorted; none for a folder not made yet. */
function entriesOf(root: string, shown: string): string[] {
  let stat;
  try {
    stat = statSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool init: cannot read ${shown}: ${(error as Error).message}`,
    );
  }
  if (!stat.isDirectory()) {
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool init: ${shown} is a file; give a folder`);
  }
  return readdirSync(root)
    .filter((entry) => !IGNORED_ENTRIES.has(entry))
    .sort();
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function readExistingManifest(file: string): Record<string, unknown> {
  if (lstatSync(file).isSymbolicLink()) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      'agenttool init: package.json is a symbolic link, which agenttool init does not change; init a folder of its own',
    );
  }
  return readManifest(readFileSync(file, 'utf8'), 'package.json');
}

/**
 * ES modules unless asked otherwise; in a folder with a package.json, what its `type`
 * says (absent: CommonJS, as Node reads it), and a flag that contradicts a stated type
 * is refused rather than followed.
 */
function chooseKind(
  asked: ModuleKind | undefined,
  existing: Record<string, unknown> | undefined,
): ModuleKind {
  if (existing === undefined) return asked ?? 'esm';
  const stated = existing['type'];
  const kind = kindOf(existing);
  if (asked !== undefined && stated !== undefined && asked !== kind) {
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool init: package.json says "type": ${JSON.stringify(stated)}, and --${asked} asks for ${asked === 'esm' ? 'ES modules' : 'CommonJS'}; drop the flag to follow package.json, or change its type first`,
    );
  }
  return asked ?? kind;
}

/** The package's name: as given (checked), the existing package.json's, or the folder's, made valid. */
function packageName(
  given: string | undefined,
  existing: Record<string, unknown> | undefined,
  root: string,
): string {
  if (given !== undefined) {
    if (given.length > 214 || !NPM_NAME.test(given)) {
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool init: --name ${JSON.stringify(given)} is not an npm package name: lower case letters, digits and - . _ ~, optionally @scope/name`,
      );
    }
    return given;
  }
  const mine = existing?.['name'];
  if (typeof mine === 'string' && NPM_NAME.test(mine)) return mine;
  const fromFolder = basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return fromFolder === '' ? 'agent-tools' : fromFolder;
}

/** Replaces a file at once: written beside it, then renamed over it. */
function replaceFile(target: string, text: string): void {
  const temporary = `${target}.agenttool-init-${process.pid}`;
  writeFileSync(temporary, text, { flag: 'wx' });
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** `cd <folder>`, with the folder as the user gave it when it can be, quoted for a shell when it must be. */
function cdLine(cwd: string, root: string, given: string): string {
  const near = relative(cwd, root);
  const path = isAbsolute(given) || near.startsWith(`..${sep}`) || near === '..' ? root : near;
  return `cd ${/^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`}`;
}
