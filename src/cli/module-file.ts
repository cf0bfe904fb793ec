import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { type Constructor, errorMessage, isModuleClass, type McpToolServer } from './public-api';
import { CliError, ExitCode } from './exit-codes';
import { syntaxPlace } from './syntax-place';
import type * as ImportFile from './import-file';

/** A root `@Module` class found in a module file. */
export interface LoadedModule {
  readonly module: Constructor;
  /** The export's name (the class name when the file exports the class itself). */
  readonly name: string;
  /** The absolute path of the file. */
  readonly file: string;
  /**
   * The file's `onServe` export, when it has one: `agenttool serve` calls it with the
   * server once it serves, so the app can change the served tools at run time.
   */
  readonly onServe?: (server: McpToolServer) => void | Promise<void>;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * Loads `spec`, a compiled JavaScript file (relative to `cwd`) that exports a `@Module`
 * class, optionally naming the export as `file.js#AppModule`. The file is loaded with
 * `import()`, so an ES module works, top-level `await` included, and so does a
 * CommonJS one. A TypeScript file is loaded only when a TypeScript runner is registered
 * with Node for its extension (`node -r @swc-node/register`, `NODE_OPTIONS='-r
 * @swc-node/register'`), through that runner. Throws a {@link CliError} (bad arguments)
 * saying what is wrong and how to fix it: a missing file or a directory, a TypeScript
 * file without a runner (build it first), a file that fails to load or whose exports
 * cannot be read, a file exporting no module or several.
 */
export async function loadModuleFile(
  spec: string,
  cwd: string = process.cwd(),
): Promise<LoadedModule> {
  const hash = spec.lastIndexOf('#');
  const path = hash > 0 ? spec.slice(0, hash) : spec;
  const wanted = hash > 0 ? spec.slice(hash + 1) : undefined;
  if (wanted === '') throw noExportNamed(spec, 'agenttool:');
  const file = resolve(cwd, path);
  const shown = shownPath(path, file, cwd);
  const unusable = unusableModulePath(path, cwd, {
    prefix: 'agenttool:',
    give: 'give the path of a compiled .js file that exports a @Module class',
  });
  if (unusable !== undefined) throw unusable;
  if (extname(file).toLowerCase() === '.json') {
    // Node would say it needs an import attribute; what was meant is another file, or
    // a configuration of MCP servers.
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown} is JSON, not a module file; give a compiled .js file that exports a @Module class (a configuration of MCP servers goes after --config)`,
    );
  }
  const typescript = TYPESCRIPT.has(extname(file)) && !file.endsWith('.d.ts');
  if (typescript && !runnerRegistered(extname(file))) {
    const built = builtCounterpart(file, cwd);
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown} is TypeScript; agenttool loads compiled JavaScript: build it first (e.g. npm run build) and give the .js file${built === undefined ? '' : `, here ${built}`}, or run agenttool through a TypeScript runner that emits decorator metadata, e.g. NODE_OPTIONS='-r @swc-node/register' npx agenttool ...`,
    );
  }
  let exported: Exports;
  try {
    exported = typescript ? requiredExports(file) : await importedExports(file);
  } catch (error) {
    // A syntax error's place is not in its message: named here, file (often another
    // the given one requires), line and column.
    const place = syntaxPlace(error);
    const where =
      place === undefined
        ? ''
        : `${relative(cwd, place.file) || place.file}:${place.line}:${place.column}: `;
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: loading ${shown} failed: ${where}${firstLine(errorMessage(error))}`,
      { cause: error },
    );
  }
  let modules: { module: Constructor; name: string }[];
  let hook: ((server: McpToolServer) => void | Promise<void>) | undefined;
  try {
    modules = moduleExports(exported);
    hook = onServeExport(exported);
  } catch (error) {
    // An export read through a getter that throws.
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: reading the exports of ${shown} failed: ${firstLine(errorMessage(error))}`,
      { cause: error },
    );
  }
  const extra = { file, ...(hook === undefined ? {} : { onServe: hook }) };
  if (wanted !== undefined) {
    const found = modules.find((m) => m.name === wanted || m.module.name === wanted);
    if (found !== undefined) return { ...found, ...extra };
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown} has no @Module export named ${wanted}${modules.length > 0 ? `; its modules: ${modules.map((m) => m.name).join(', ')}` : ''}`,
    );
  }
  const only = modules[0];
  if (only === undefined) {
    const names = exportNames(exported);
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown} exports no @Module class (its exports: ${names.length > 0 ? names.join(', ') : 'none'}); export the app's root module, a class decorated with @Module({ tools, providers, imports }) from agenttool/di`,
    );
  }
  if (modules.length > 1) {
    const names = modules.map((m) => m.name);
    throw new CliError(
      ExitCode.BAD_ARGUMENTS,
      `agenttool: ${shown} exports several @Module classes (${names.join(', ')}); pick the root with ${path}#${names[0]}`,
    );
  }
  return { ...only, ...extra };
}

/**
 * The error for a module file's path (relative to `cwd`) that names a directory or
 * nothing, undefined when it names a file: `<prefix> module file <path> is a directory;
 * <give>` or `... not found; <give>`. `agenttool serve`, `list`, `call` and `dev` say the
 * same of the same path.
 */
export function unusableModulePath(
  path: string,
  cwd: string,
  words: { readonly prefix: string; readonly give: string },
): CliError | undefined {
  const file = resolve(cwd, path);
  const shown = shownPath(path, file, cwd);
  if (existsSync(file) && statSync(file).isDirectory()) {
    return new CliError(
      ExitCode.BAD_ARGUMENTS,
      `${words.prefix} module file ${shown} is a directory; ${words.give}`,
    );
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    return new CliError(
      ExitCode.BAD_ARGUMENTS,
      `${words.prefix} module file ${shown} not found${notFoundWhere(path, file, cwd)}; ${words.give}`,
    );
  }
  return undefined;
}

/**
 * A module file's path as messages show it: from `cwd`, but as given when absolute and
 * `cwd` is the root (where a host starts servers: `tmp/x.js` would read as relative).
 */
function shownPath(path: string, file: string, cwd: string): string {
  if (isAbsolute(path) && dirname(cwd) === cwd) return file;
  return relative(cwd, file) || file;
}

/**
 * Where a relative path that names nothing was looked for, when it is not plain: from
 * a folder other than a project's (a host starts servers from `/` or its own folder),
 * or in a project not built yet.
 */
function notFoundWhere(path: string, file: string, cwd: string): string {
  if (isAbsolute(path)) return '';
  if (!existsSync(join(cwd, 'package.json'))) {
    return ` in ${cwd} (a relative path starts at the folder agenttool runs in; give an absolute one)`;
  }
  return /\.[cm]?js$/.test(file)
    ? ' (not built yet? build the project first, e.g. npm run build)'
    : '';
}

/**
 * What a file exports, as named values: an ES module's named exports (its default
 * export under `default`), or a CommonJS module's `module.exports` when it is an object.
 * A CommonJS `module.exports` that is itself a function (`module.exports = AppModule`)
 * is kept as `default`.
 */
type Exports = Readonly<Record<string, unknown>>;

async function importedExports(file: string): Promise<Exports> {
  // The file is named at run time; import() loads ES modules (top-level await
  // included) and CommonJS alike. A CommonJS module's namespace holds what Node could
  // tell of its exports, and all of module.exports as `default`.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an entry of its own in the bundle (import-file.ts)
  const { importFile } = require('./import-file') as typeof ImportFile;
  const namespace = await importFile(file);
  const whole = namespace['default'];
  if ('module.exports' in namespace || isCommonJs(file)) {
    return typeof whole === 'object' && whole !== null ? (whole as Exports) : { default: whole };
  }
  return namespace;
}

function requiredExports(file: string): Exports {
  // Through the TypeScript runner registered with Node for the extension.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = require(file) as unknown;
  return typeof exported === 'object' && exported !== null
    ? (exported as Exports)
    : { default: exported };
}

/** True when Node loaded `file` as CommonJS (it is then in the CommonJS module cache). */
function isCommonJs(file: string): boolean {
  // The cache is keyed by the real path (symbolic links resolved).
  return require.cache[file] !== undefined || require.cache[realpathSync(file)] !== undefined;
}

/** True when a TypeScript runner (SWC, tsx, ts-node) has taught `require` the extension. */
function runnerRegistered(extension: string): boolean {
  return require.extensions[extension] !== undefined;
}

function onServeExport(
  exported: Exports,
): ((server: McpToolServer) => void | Promise<void>) | undefined {
  const hook = exported['onServe'];
  return typeof hook === 'function'
    ? (hook as (server: McpToolServer) => void | Promise<void>)
    : undefined;
}

function moduleExports(exported: Exports): { module: Constructor; name: string }[] {
  const found: { module: Constructor; name: string }[] = [];
  for (const [name, value] of Object.entries(exported)) {
    if (isModuleClass(value) && !found.some((f) => f.module === value)) {
      // A default export goes by its class's name.
      found.push({ module: value, name: name === 'default' ? value.name : name });
    }
  }
  return found;
}

function exportNames(exported: Exports): string[] {
  return Object.entries(exported).flatMap(([name, value]) => {
    if (name === '__esModule') return [];
    if (name !== 'default') return [name];
    return typeof value === 'function' ? [value.name || '(anonymous function)'] : ['default'];
  });
}

// The usual place tsc puts the output: dist/<the same path>.js under the nearest package.
function builtCounterpart(file: string, cwd: string): string | undefined {
  let dir = dirname(file);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) {
      const candidate = join(dir, 'dist', relative(dir, file)).replace(/\.[cm]?tsx?$/, '.js');
      return existsSync(candidate) ? relative(cwd, candidate) || candidate : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/** A module path ending in `#` with no name after it. */
export function noExportNamed(spec: string, prefix: string): CliError {
  return new CliError(
    ExitCode.BAD_ARGUMENTS,
    `${prefix} ${JSON.stringify(spec)}: give the name of a @Module export after #, e.g. ${spec}AppModule, or leave the # out`,
  );
}
