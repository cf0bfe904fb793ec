import { relative } from 'node:path';
import {
  errorMessage,
  type ServedChanges,
  type ServeSource,
  ToolApp,
  type Tool,
  wrap,
} from './public-api';
import { CliError, ExitCode } from './exit-codes';
import { DevLoader, DevLoadError, type SourceLocation } from './dev-loader';
import { FileWatch } from './dev-watch';
import { type ServeOptions, serveModule, type Serving } from './serve';
import { closeFailures } from './targets';
import { terminalSafeLines } from './terminal-text';

/** What `agenttool dev` takes: the module file, and how to serve it (as `serve`). */
export interface DevOptions extends Omit<ServeOptions, 'moduleFile' | 'module' | 'serveAs'> {
  /** The module file, `.ts` or `.js`, optionally `file.ts#Export`. */
  readonly moduleFile: string;
  /** How long the files must be quiet after an edit before the app reloads (ms). */
  readonly debounceMs?: number | undefined;
}

/** A running `agenttool dev`. */
export interface Developing {
  /** The HTTP endpoint's URL; undefined over stdio. */
  readonly url: string | undefined;
  /** Resolves once the server, every app and the watchers are closed. */
  readonly closed: Promise<void>;
  /** Stops serving, closes every app still open (each once) and the watchers. */
  stop(signal?: string): Promise<void>;
}

/**
 * Serves a module file from source, as `serve` does, and reloads it on every edit of a
 * file it loaded: the new app replaces the old one behind the same MCP server (sessions
 * and connections stay; clients are told the lists changed), what changed is printed
 * to `log`, and the old app is closed (its lifecycle hooks run, once) as soon as no call
 * of its tools is running. An edit that does not compile or whose app fails to start
 * is printed with its file and line, and the last good app goes on serving.
 */
export async function developModule(options: DevOptions): Promise<Developing> {
  const log = options.log;
  process.setSourceMapsEnabled(true);
  const loader = new DevLoader(options.moduleFile);
  let first;
  try {
    first = loader.load();
  } catch (error) {
    loader.close();
    if (error instanceof CliError) throw error;
    throw new CliError(ExitCode.BAD_ARGUMENTS, `agenttool: dev: ${failure(error, loader)}`, {
      cause: error,
    });
  }
  const generations = new Set<Generation>();
  let current: Generation | undefined;
  let serving: Serving;
  try {
    serving = await serveModule({
      ...options,
      module: { module: first.module, name: first.name },
      listChanged: true,
      serveAs: (app) => {
        current = new Generation(app, log);
        generations.add(current);
        return current.source();
      },
    });
  } catch (error) {
    loader.close();
    throw error;
  }

  let reloading: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const reload = async (changed: readonly string[]): Promise<void> => {
    const shown = changed.map((file) => relative(process.cwd(), file) || file).join(', ');
    loader.unload();
    let app: ToolApp;
    try {
      const loaded = loader.load();
      app = await ToolApp.create(loaded.module, {
        onWarning: (warning) => log.write(`agenttool: warning: ${warning}\n`),
      });
    } catch (error) {
      log.write(
        `agenttool: dev: reload failed after an edit of ${shown}: ${failure(error, loader)}\n` +
          `  still serving the last good app: ${names(serving.server.tools)}\n`,
      );
      // Watch what the failed load read too: the file that broke it, when it is new.
      watch.watch(new Set([...watch.files, ...loader.files]));
      return;
    }
    const next = new Generation(app, log);
    let changes: ServedChanges;
    try {
      if (stopped) throw new Error('agenttool dev is stopping');
      changes = serving.server.swap(next.source());
    } catch (error) {
      log.write(
        `agenttool: dev: reload failed after an edit of ${shown}: ${errorMessage(error)}\n`,
      );
      await next.retire();
      return;
    }
    generations.add(next);
    const previous = current;
    current = next;
    watch.watch(loader.files);
    log.write(`agenttool: dev: reloaded after an edit of ${shown}\n${changeLines(changes)}`);
    void previous?.retire().then(() => {
      generations.delete(previous);
      if (!stopped) log.write('agenttool: dev: the previous app is closed, its calls done\n');
    });
  };
  const watch = new FileWatch((changed) => {
    if (stopped) return;
    if (reloading !== undefined) {
      again = true;
      return;
    }
    const run = async (files: readonly string[]): Promise<void> => {
      await reload(files);
      // Edits made while reloading: once more, with what is on disk now.
      if (again && !stopped) {
        again = false;
        await run(watch.files);
      }
    };
    reloading = run(changed).finally(() => (reloading = undefined));
  }, options.debounceMs);
  watch.watch(loader.files);
  log.write(
    `agenttool: dev: watching ${loader.files.length} file${loader.files.length === 1 ? '' : 's'}; an edit reloads the app\n`,
  );

  let stopping: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const stop = (signal?: string): Promise<void> =>
    (stopping ??= (async () => {
      stopped = true;
      watch.close();
      await reloading;
      await serving.stop(signal);
      // The server's close stopped the calls; each app still open closes now, once.
      await Promise.all([...generations].map((generation) => generation.close(signal)));
      loader.unload();
      loader.close();
      resolveClosed();
    })());
  // The client ended stdio, or the server stopped otherwise: everything stops.
  void serving.closed.then(() => stop());
  return { url: serving.url, closed, stop };
}

/** One load of the app: its tools counted while they run, closed once retired and idle. */
class Generation {
  readonly #app: ToolApp;
  readonly #log: ServeOptions['log'];
  #running = 0;
  #retired = false;
  #idle: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(app: ToolApp, log: ServeOptions['log']) {
    this.#app = app;
    this.#log = log;
  }

  /** The app as served: its tools wrapped to count the calls running. */
  source(): ServeSource {
    const app = this.#app;
    return {
      tools: [...app.tools].map((tool) => this.#counted(tool)),
      prompts: app.prompts,
      resources: app.resources,
      recorder: app.recorder,
    };
  }

  /** Closes the app once no call of its tools is running any more. */
  async retire(): Promise<void> {
    this.#retired = true;
    if (this.#running > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    await this.close();
  }

  /** Closes the app now (its hooks run once, whoever asks). */
  close(signal?: string): Promise<void> {
    this.#closing ??= this.#app.close(signal).catch((error: unknown) => {
      // One line a problem, each naming its provider or hook (closing Res: close boom).
      for (const failure of closeFailures(error)) {
        this.#log.write(
          `agenttool: dev: while closing the previous app: ${terminalSafeLines(failure)}\n`,
        );
      }
    });
    return this.#closing;
  }

  #counted(tool: Tool): Tool {
    return wrap(tool, async (call, ctx) => {
      this.#running++;
      try {
        return await tool.execute(call, ctx);
      } finally {
        this.#running--;
        if (this.#retired && this.#running === 0) this.#idle?.();
      }
    });
  }
}

/** A failed load or start, as one line: where (file:line:column), then what. */
function failure(error: unknown, loader: DevLoader): string {
  const location = loader.locate(error);
  const message =
    error instanceof DevLoadError
      ? error.message
      : `the app could not start: ${errorMessage(error)}`;
  return location === undefined ? message : `${where(location)}: ${message}`;
}

function where(location: SourceLocation): string {
  const file = relative(process.cwd(), location.file) || location.file;
  return `${file}:${location.line}:${location.column}`;
}

function names(tools: readonly Tool[]): string {
  return tools.length === 0 ? 'no tools' : tools.map((tool) => tool.name).join(', ');
}

/** What a reload changed, a line each: `+ name`, `- name`, `~ name from → to`. */
export function changeLines(changes: ServedChanges): string {
  const lines = [
    ...changes.added.map((name) => `  + ${name}`),
    ...changes.removed.map((name) => `  - ${name}`),
    ...changes.changed.map(({ name, from, to }) => `  ~ ${name} ${short(from)} → ${short(to)}`),
    ...(changes.promptsChanged ? ['  prompts changed'] : []),
    ...(changes.resourcesChanged ? ['  resources changed'] : []),
  ];
  return lines.length === 0 ? '  no change to what is served\n' : `${lines.join('\n')}\n`;
}

// Enough of a hash to tell two apart: `sha256:` and 12 hex digits.
function short(hash: string): string {
  return hash.slice(0, 'sha256:'.length + 12);
}
