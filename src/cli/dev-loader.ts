import { existsSync, readFileSync, realpathSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Constructor, errorMessage, isModuleClass } from './public-api';
import { syntaxPlace } from './syntax-place';
import { CliError, ExitCode } from './exit-codes';
import { noExportNamed, unusableModulePath } from './module-file';

/** The TypeScript extensions `agenttool dev` compiles with SWC. */
const TYPESCRIPT = ['.ts', '.tsx', '.mts', '.cts'] as const;
/**
 * The JavaScript extensions that may hold an ES module of the user's: compiled to
 * CommonJS by SWC too, since Node keeps an ES module it loaded for the life of the
 * process, and dev must read the file again after each edit.
 */
const JAVASCRIPT = ['.js', '.mjs'] as const;
/** What a relative `.js` import of a TypeScript project may name: its source. */
const JS_TO_TS: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};

/** Where a failure of the user's code is: a file of theirs, a line and a column. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A module file that did not load: it does not compile (`location` is where SWC
 * stopped), it threw while loading, or it exports no single `@Module`.
 */
export class DevLoadError extends Error {
  readonly location: SourceLocation | undefined;

  constructor(message: string, location: SourceLocation | undefined, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DevLoadError';
    this.location = location;
  }
}

/** A root module loaded from source, with the user's files it loaded. */
export interface DevModule {
  readonly module: Constructor;
  readonly name: string;
}

/** The part of `@swc/core` the loader uses. */
interface Swc {
  transformSync(source: string, options: object): { code: string };
}

interface InternalModule {
  _compile(code: string, filename: string): void;
}
type ResolveFilename = (request: string, parent: unknown, ...rest: unknown[]) => string;
const internals = Module as unknown as {
  _resolveFilename: ResolveFilename;
  _extensions: Record<string, (module: InternalModule, filename: string) => void>;
  _cache: Record<string, { children?: unknown[] } | undefined>;
};

/**
 * Loads a module file from source for `agenttool dev`, again after each edit. TypeScript
 * is compiled by SWC as the project's own build would (experimental decorators,
 * decorator metadata, `useDefineForClassFields: false`, CommonJS), with inline source
 * maps so that stack traces name the `.ts` lines; `import './x.js'` finds `x.ts`. Every
 * file it loads outside `node_modules` and outside agenttool is the user's: watched,
 * and dropped from Node's module cache before the next load (what the libraries in
 * `node_modules` hold of an old load, such as class-validator's registry, stays).
 */
export class DevLoader {
  readonly #entry: string;
  readonly #export: string | undefined;
  /** SWC, loaded when the first TypeScript file is: a CommonJS `.js` app needs none. */
  #swc: Swc | undefined;
  /** The user's files of the last load (or load attempt), in load order. */
  #files: string[] = [];
  readonly #own: string;
  #restore: (() => void) | undefined;

  constructor(spec: string, cwd: string = process.cwd()) {
    const hash = spec.lastIndexOf('#');
    const path = hash > 0 ? spec.slice(0, hash) : spec;
    this.#export = hash > 0 ? spec.slice(hash + 1) : undefined;
    if (this.#export === '') throw noExportNamed(spec, 'agenttool: dev:');
    // A directory or a missing file is told as serve tells it.
    const unusable = unusableModulePath(path, cwd, {
      prefix: 'agenttool: dev:',
      give: 'give the .ts or .js file that exports your root @Module',
    });
    if (unusable !== undefined) throw unusable;
    this.#entry = realpathSync(resolve(cwd, path));
    // agenttool's own files (the bundle's folder's parent, dist/): never the user's.
    this.#own = resolve(__dirname, '..');
  }

  /** The module file, absolute. */
  get entry(): string {
    return this.#entry;
  }

  /** The user's files the last load read (an attempt that failed included). */
  get files(): readonly string[] {
    return this.#files;
  }

  /**
   * Loads the module file afresh (after {@link DevLoader.unload}) and returns its root
   * module. Throws a {@link DevLoadError} saying where it failed.
   */
  load(): DevModule {
    this.#install();
    const before = new Set(Object.keys(internals._cache));
    let exported: unknown;
    try {
      exported = requireFresh(this.#entry);
    } catch (error) {
      // A missing SWC is the setup's to fix, not a line of the user's.
      throw error instanceof DevLoadError || error instanceof CliError
        ? error
        : new DevLoadError(firstLine(errorMessage(error)), this.locate(error), { cause: error });
    } finally {
      this.#files = Object.keys(internals._cache).filter(
        (file) => !before.has(file) && this.#isUsers(file),
      );
      if (!this.#files.includes(this.#entry)) this.#files.unshift(this.#entry);
    }
    return this.#pick(exported);
  }

  /** Drops the user's files from Node's module cache, so that the next load reads them anew. */
  unload(): void {
    const dropped = new Set<unknown>();
    for (const file of this.#files) {
      const cached = internals._cache[file];
      if (cached === undefined) continue;
      dropped.add(cached);
      delete internals._cache[file];
    }
    // A module stays reachable from its parent's children: take it out there too.
    for (const cached of Object.values(internals._cache)) {
      if (cached?.children !== undefined && cached.children.some((c) => dropped.has(c))) {
        cached.children = cached.children.filter((child) => !dropped.has(child));
      }
    }
  }

  /** Removes the loader's hooks from Node's module system. */
  close(): void {
    this.#restore?.();
    this.#restore = undefined;
  }

  /**
   * Where in the user's files `error` (or an error it was caused by) was thrown: the
   * first stack frame in one of them, source-mapped to the TypeScript.
   */
  locate(error: unknown): SourceLocation | undefined {
    const seen = new Set<unknown>();
    const queue: unknown[] = [error];
    while (queue.length > 0) {
      const next = queue.shift();
      if (!(next instanceof Error) || seen.has(next)) continue;
      seen.add(next);
      if (next instanceof DevLoadError && next.location !== undefined) return next.location;
      const place = syntaxPlace(next);
      if (place !== undefined && this.#isUsers(place.file)) return place;
      for (const line of (next.stack ?? '').split('\n').slice(1)) {
        // `at fn (/path:line:col)` or `at /path:line:col`; never `node:internal/...`.
        const frame =
          /(?:\(|at )((?:file:\/\/)?\/[^()]*?|[A-Za-z]:\\[^()]*?):(\d+):(\d+)\)?\s*$/.exec(line);
        if (frame === null) continue;
        const file = frame[1]!.replace(/^file:\/\//, '');
        if (this.#isUsers(file)) {
          return { file, line: Number(frame[2]), column: Number(frame[3]) };
        }
      }
      queue.push(next.cause, ...(next instanceof AggregateError ? (next.errors as unknown[]) : []));
    }
    return undefined;
  }

  #isUsers(file: string): boolean {
    return (
      isAbsolute(file) &&
      !file.split(sep).includes('node_modules') &&
      !(file === this.#own || file.startsWith(this.#own + sep))
    );
  }

  #pick(exported: unknown): DevModule {
    const shown = relative(process.cwd(), this.#entry) || this.#entry;
    const entries =
      typeof exported === 'object' && exported !== null
        ? Object.entries(exported as Record<string, unknown>)
        : [['default', exported] as const];
    const modules: DevModule[] = [];
    for (const [name, value] of entries) {
      if (isModuleClass(value) && !modules.some((m) => m.module === value)) {
        modules.push({ module: value, name: name === 'default' ? value.name : name });
      }
    }
    const where = { file: this.#entry, line: 1, column: 1 };
    if (this.#export !== undefined) {
      const found = modules.find((m) => m.name === this.#export || m.module.name === this.#export);
      if (found !== undefined) return found;
      throw new DevLoadError(
        `${shown} has no @Module export named ${this.#export}${modules.length > 0 ? `; its modules: ${modules.map((m) => m.name).join(', ')}` : ''}`,
        where,
      );
    }
    if (modules.length !== 1) {
      throw new DevLoadError(
        modules.length === 0
          ? `${shown} exports no @Module class; export the app's root module, a class decorated with @Module({ tools, providers, imports }) from agenttool/di`
          : `${shown} exports several @Module classes (${modules.map((m) => m.name).join(', ')}); pick the root with ${shown}#${modules[0]!.name}`,
        where,
      );
    }
    return modules[0]!;
  }

  /** Teaches `require` TypeScript (through SWC) and `.js` imports that name `.ts` sources. */
  #install(): void {
    if (this.#restore !== undefined) return;
    const swc = (): Swc => (this.#swc ??= loadSwc(this.#entry));
    const previous = new Map(
      [...TYPESCRIPT, ...JAVASCRIPT].map((ext) => [ext, internals._extensions[ext]]),
    );
    for (const ext of TYPESCRIPT) {
      internals._extensions[ext] = (module, filename) => {
        module._compile(compile(swc(), readFileSync(filename, 'utf8'), filename), filename);
      };
    }
    const esmScopes = new Map<string, boolean>();
    for (const ext of JAVASCRIPT) {
      const node = internals._extensions[ext];
      internals._extensions[ext] = (module, filename) => {
        if (this.#isUsers(filename) && isEsModule(filename, esmScopes)) {
          const source = readFileSync(filename, 'utf8');
          module._compile(compile(swc(), source, filename, 'ecmascript'), filename);
        } else if (node !== undefined) {
          node(module, filename);
        }
      };
    }
    const resolveFilename = internals._resolveFilename;
    internals._resolveFilename = function (request, parent, ...rest) {
      try {
        return resolveFilename.call(this, request, parent, ...rest);
      } catch (error) {
        const source = typescriptSource(request, parent);
        if (source === undefined) throw error;
        return source;
      }
    };
    this.#restore = () => {
      internals._resolveFilename = resolveFilename;
      for (const [ext, handler] of previous) {
        if (handler === undefined) delete internals._extensions[ext];
        else internals._extensions[ext] = handler;
      }
    };
  }
}

/** `require(file)` read from disk, not from the cache. */
function requireFresh(file: string): unknown {
  // The loader dropped the user's files before; require reads them again.
  return createRequire(file)(file);
}

/** The `.ts` file a relative `./x.js` import means, when only the source exists. */
function typescriptSource(request: string, parent: unknown): string | undefined {
  if (!request.startsWith('.')) return undefined;
  const from = (parent as { filename?: unknown } | undefined)?.filename;
  if (typeof from !== 'string') return undefined;
  const ext = extname(request);
  for (const candidate of JS_TO_TS[ext] ?? []) {
    const file = join(dirname(from), request.slice(0, -ext.length) + candidate);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * True for a `.mjs` file, and for a `.js` file whose nearest `package.json` says
 * `"type": "module"` (Node's own rule); `scopes` remembers each folder's answer.
 */
function isEsModule(filename: string, scopes: Map<string, boolean>): boolean {
  if (filename.endsWith('.mjs')) return true;
  const seen: string[] = [];
  let dir = dirname(filename);
  let answer = false;
  for (;;) {
    const known = scopes.get(dir);
    if (known !== undefined) {
      answer = known;
      break;
    }
    seen.push(dir);
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        answer =
          (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        answer = false; // Node refuses a broken package.json itself, with its own message.
      }
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const folder of seen) scopes.set(folder, answer);
  return answer;
}

function compile(
  swc: Swc,
  source: string,
  filename: string,
  syntax: 'typescript' | 'ecmascript' = 'typescript',
): string {
  try {
    return swc.transformSync(source, {
      filename,
      swcrc: false,
      configFile: false,
      sourceMaps: 'inline',
      module: { type: 'commonjs' },
      jsc: {
        parser:
          syntax === 'typescript'
            ? { syntax, decorators: true, tsx: filename.endsWith('.tsx') }
            : { syntax, decorators: true, jsx: false },
        target: 'es2022',
        keepClassNames: true,
        transform: {
          legacyDecorator: true,
          decoratorMetadata: true,
          useDefineForClassFields: false,
        },
      },
    }).code;
  } catch (error) {
    const { message, location } = swcDiagnostic(errorMessage(error), filename);
    throw new DevLoadError(message, location, { cause: error });
  }
}

/**
 * SWC's diagnostic as one message and where it points: `x <message>`, then the snippet
 * under `,-[file:line:col]` (where the snippet starts), the caret line under the line
 * at fault.
 */
export function swcDiagnostic(
  text: string,
  filename: string,
): { message: string; location: SourceLocation } {
  const lines = text.split('\n');
  const message = lines
    .map((line) => /^\s*(?:x|×)\s+(.*)$/.exec(line)?.[1])
    .find((found) => found !== undefined);
  const header = /,-\[(.*):(\d+):(\d+)\]/.exec(text);
  let location: SourceLocation = {
    file: header?.[1] ?? filename,
    line: Number(header?.[2] ?? 1),
    column: Number(header?.[3] ?? 1),
  };
  for (let i = 1; i < lines.length; i++) {
    const caret = /^(\s*):(\s*)\^/.exec(lines[i]!);
    const source = /^\s*(\d+) \|/.exec(lines[i - 1]!);
    if (caret === null || source === null) continue;
    location = {
      file: location.file,
      line: Number(source[1]),
      column: caret[2]!.length,
    };
    break;
  }
  return { message: message ?? firstLine(text), location };
}

/** `@swc/core`, from the project of the module file, else beside agenttool. */
function loadSwc(entry: string): Swc {
  for (const from of [entry, __filename]) {
    try {
      return createRequire(from)('@swc/core') as Swc;
    } catch {
      // Not there: the next place, then the error below.
    }
  }
  throw new CliError(
    ExitCode.BAD_ARGUMENTS,
    'agenttool: dev: compiling TypeScript (and ES module .js) needs SWC, and @swc/core is not installed: npm install --save-dev @swc/core',
  );
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
