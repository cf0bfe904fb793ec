import { type Writable } from 'node:stream';
import {
  AgentToolError,
  errorMessage,
  type McpResource,
  type McpResourceTemplate,
  McpServers,
  type McpServersConfig,
  type Prompt,
  type RecordFunc,
  type Tool,
  type ToolApp,
  transformTools,
} from './public-api';
import { readConfigFile } from './config-file';
import { CliError, ExitCode } from './exit-codes';
import { packageVersion } from './version';
import { terminalSafe, terminalSafeLines } from './terminal-text';

/** How `--config` is opened. */
export interface CompositionSpec {
  /** The configuration file (`mcpServers`, or VS Code's `servers`). */
  readonly config: string;
  /** Expand `${VAR}` and `${env:VAR}` from this process's environment (`--expand-env`). */
  readonly expandEnv?: boolean | undefined;
  /** Where reports of the servers go, one line each (stderr). */
  readonly log: Writable;
  /**
   * For a command that uses the servers once and ends (`list`, `call`): each server gets
   * one attempt, and none is reported as to be tried again.
   */
  readonly once?: boolean;
}

/**
 * The tools of a module file's app (changed by the configuration's `tools` section and
 * filtered by its tags) beside those of the configured MCP servers: what `serve --config`
 * serves and `list --config` lists. It follows the servers as they come and go.
 */
export class Composition {
  readonly #listeners = new Set<() => void>();
  #tools: readonly Tool[] | undefined;
  readonly #warned = new Set<string>();
  readonly #stops: (() => void)[];

  private constructor(
    readonly servers: McpServers,
    private readonly app: ToolApp | undefined,
    /** How the app's tools are changed; undefined without an app. */
    private readonly local: ((tools: readonly Tool[]) => Tool[]) | undefined,
    private readonly log: Writable,
    /** The configuration file as errors show it. */
    readonly file: string,
  ) {
    const changed = (): void => {
      this.#tools = undefined;
      for (const listener of [...this.#listeners]) listener();
    };
    this.#stops = [servers.onToolsChanged(changed)];
    if (app !== undefined) this.#stops.push(app.onToolsChanged(changed));
  }

  /**
   * Reads the configuration, starts its servers (each reported on `log` when it fails,
   * and tried again) and checks the local `tools` section against the app's tools. A
   * malformed file or section is a {@link CliError} (bad arguments) naming the file, the
   * entry and the field.
   */
  static async open(app: ToolApp | undefined, spec: CompositionSpec): Promise<Composition> {
    const file = readConfigFile(spec.config);
    const log = spec.log;
    let servers: McpServers;
    try {
      servers = await McpServers.start(file.value as McpServersConfig, {
        source: file.shown,
        baseDir: file.dir,
        ...(spec.expandEnv === true ? { env: process.env } : {}),
        onWarning: (message) => log.write(`agenttool: ${terminalSafeLines(message)}\n`),
        clientInfo: { name: 'agenttool', version: packageVersion() },
        ...(spec.once === true ? { retry: { maxAttempts: 1 } } : {}),
      });
    } catch (error) {
      throw badConfig(error);
    }
    const { tools: section, includeTags, excludeTags } = servers.config;
    const localSpec = {
      ...section,
      ...(includeTags === undefined ? {} : { includeTags }),
      ...(excludeTags === undefined ? {} : { excludeTags }),
    };
    const local =
      app === undefined
        ? undefined
        : (tools: readonly Tool[]): Tool[] => transformTools(tools, localSpec);
    if (app === undefined && section !== undefined) {
      await servers.close();
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: ${file.shown}: tools: changes the tools of the module file, and none is given; give one, or move the section into a server's entry`,
      );
    }
    try {
      local?.([...(app?.tools ?? [])]);
    } catch (error) {
      await servers.close();
      throw new CliError(
        ExitCode.BAD_ARGUMENTS,
        `agenttool: ${file.shown}: tools: ${errorMessage(error)}`,
      );
    }
    return new Composition(servers, app, local, log, file.shown);
  }

  /** The app's tools as changed, then the servers' (a name the app has is the app's). */
  get tools(): readonly Tool[] {
    if (this.#tools === undefined) {
      const own = this.local?.([...(this.app?.tools ?? [])]) ?? [];
      const names = new Set(own.map((tool) => tool.name));
      const remote = this.servers.tools.filter((tool) => {
        if (!names.has(tool.name)) return true;
        const warning = `agenttool: tool ${terminalSafe(JSON.stringify(tool.name))} of an MCP server is left out: the module's tool has that name\n`;
        if (!this.#warned.has(warning)) this.log.write(warning);
        this.#warned.add(warning);
        return false;
      });
      this.#tools = [...own, ...remote];
    }
    return this.#tools;
  }

  onToolsChanged(listener: () => void): () => void {
    const entry = (): void => listener();
    this.#listeners.add(entry);
    return () => void this.#listeners.delete(entry);
  }

  /**
   * Calls `listener` after the servers' prompts or resources change, or the app's (see
   * `McpServers.onPrimitivesChanged`): what `serve --config` follows. Returns its remover.
   */
  onPrimitivesChanged(listener: () => void): () => void {
    const stops = [this.servers.onPrimitivesChanged(listener)];
    if (this.app !== undefined) stops.push(this.app.onPrimitivesChanged(listener));
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** True while the servers' prompts and resources are followed. */
  get primitivesMayChange(): boolean {
    return this.servers.primitivesMayChange || this.app?.primitivesMayChange === true;
  }

  /** The app's prompts, then the servers' (see `McpServers.prompts`). */
  get prompts(): readonly Prompt[] {
    const own = this.app?.prompts ?? [];
    const names = new Set(own.map((p) => p.name));
    return [...own, ...this.servers.prompts.filter((p) => !names.has(p.name))];
  }

  /** The app's resources, then the servers' whose URI and name the app does not serve. */
  get resources(): readonly (McpResource | McpResourceTemplate)[] {
    const own = this.app?.resources ?? [];
    const key = (r: McpResource | McpResourceTemplate): string[] => [
      `name:${r.name}`,
      `uri:${'uriTemplate' in r ? r.uriTemplate : r.uri}`,
    ];
    const taken = new Set(own.flatMap(key));
    return [...own, ...this.servers.resources.filter((r) => !key(r).some((k) => taken.has(k)))];
  }

  /** The app's recorder, which every served call writes to. */
  get recorder(): RecordFunc | undefined {
    return this.app?.recorder;
  }

  /** One line per server: its name, where it stands and how many tools it serves. */
  statusLines(): string {
    return this.servers.status
      .map((s) => {
        const state =
          s.state === 'up'
            ? `up, ${s.tools} tools`
            : `${s.state}${s.error === undefined ? '' : `: ${s.error}`}`;
        return `  mcp server ${s.name}: ${terminalSafe(state)} (${s.target})\n`;
      })
      .join('');
  }

  /** Stops following, and closes the servers (not the app: its owner closes it). */
  async close(): Promise<void> {
    for (const stop of this.#stops) stop();
    await this.servers.close();
  }
}

function badConfig(error: unknown): CliError {
  const bad = error instanceof AgentToolError && error.code === 'INVALID_OPTIONS';
  return new CliError(
    bad ? ExitCode.BAD_ARGUMENTS : ExitCode.CONNECTION,
    `agenttool: ${errorMessage(error)}`,
    { cause: error },
  );
}
