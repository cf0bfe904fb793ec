import { tmpdir } from 'node:os';
import type { Constructor } from 'agenttool';
import { type HandleOptions, Module, type ModuleOptions, type Token } from 'agenttool/di';
import { Shell } from './shell';
import { type ShellOptions } from './shell-options';
import { shellTools } from './tools';

/**
 * The handle a client without a session keeps its shell by: `shell_id`, minted with the
 * first call's result, ended after 30 minutes unused. At most 16 shells a caller and 64
 * open in all, sessions' own among them (a shell is a bash, in its sandbox, for as long
 * as it lives).
 */
export const SHELL_HANDLE: HandleOptions = {
  argument: 'shell_id',
  holds: 'shell',
  maxPerCaller: 16,
  maxOpen: 64,
};

/** How {@link ShellModule.forRoot} makes each session's shell and its tools. */
export type ShellModuleOptions = ShellOptions;

/** The options that decide where commands run, which the tools' `Confined` answers follow. */
export type ShellPlacement = Pick<
  ShellOptions,
  'sandbox' | 'container' | 'allowUnsandboxedCommands'
>;

/** How {@link ShellModule.forRootAsync} makes each session's shell from injected values. */
export interface ShellModuleAsyncOptions {
  /** Where commands run: known when the module is made, since the tools declare it. */
  readonly placement?: ShellPlacement;
  /** Modules whose exports `inject` may name. */
  readonly imports?: readonly Constructor[];
  /** The tokens whose values `useFactory` takes, in order. */
  readonly inject?: readonly Token[];
  /** The rest of the shell's options (`cwd`, `env`, timeouts), for each session's shell. */
  readonly useFactory: (
    ...deps: never[]
  ) => Omit<ShellOptions, keyof ShellPlacement> | Promise<Omit<ShellOptions, keyof ShellPlacement>>;
}

/**
 * The shell tools, `bash` and `restart`, sharing one injected {@link Shell}. The shell
 * is session-scoped: each client session (each MCP connection) gets its own, made on its
 * first call and closed when the session ends; calls without a session share one. A
 * client without sessions (MCP 2026-07-28) keeps a shell by its handle, `shell_id`
 * ({@link SHELL_HANDLE}): the tools take it as an argument, and a call without it there
 * starts a new shell whose handle comes back with the result. Calls on one shell queue
 * and run in the order they came.
 * `app.close()` closes every shell still open. The module exports `Shell`, so the tools
 * of a module that imports it can inject the session's shell too.
 *
 * `ShellModule` itself is `ShellModule.forRoot({})`: a sandboxed shell in the working
 * directory, with an allow-listed environment (`PATH`, `HOME`, `LANG`, `TERM`).
 */
@Module(moduleOptions({}, { useFactory: () => ({}) }))
export class ShellModule {
  /**
   * A shell module configured with `options`: where the shell runs (`cwd`, the
   * sandbox's policy, or a container), its environment and its limits. The tools'
   * `Confined` answers follow from the same options, and the `bash` tool offers the
   * escape hatch only with `allowUnsandboxedCommands`. Bad options throw here.
   */
  static forRoot(options: ShellModuleOptions): Constructor {
    new Shell(options);
    const { sandbox, container, allowUnsandboxedCommands, ...rest } = options;
    const placement = placementOf({ sandbox, container, allowUnsandboxedCommands });
    return configured(moduleOptions(placement, { useFactory: () => rest }));
  }

  /**
   * A shell module whose shells take their options from injected values (a
   * configuration read when the app starts, say), as NestJS's `forRootAsync` does.
   */
  static forRootAsync(options: ShellModuleAsyncOptions): Constructor {
    const placement = placementOf(options.placement ?? {});
    // The placement alone is checked now; the rest when the first shell is made. The
    // working folder is the factory's (this process's may be any, even one no shell
    // may write in): a neutral one stands in for the check.
    // A container takes no sandbox: the default policy stands in only without one.
    const check: ShellPlacement =
      placement.sandbox === undefined && placement.container === undefined
        ? { ...placement, sandbox: {} }
        : placement;
    new Shell(
      check.container === undefined && check.sandbox !== false
        ? { ...check, cwd: tmpdir() }
        : check,
    );
    return configured(moduleOptions(placement, options));
  }
}

function configured(options: ModuleOptions): Constructor {
  @Module(options)
  class ConfiguredShellModule {}
  return ConfiguredShellModule;
}

/** The placement with only the keys given, so that an absent one keeps its default. */
function placementOf(placement: {
  readonly [K in keyof ShellPlacement]?: ShellPlacement[K] | undefined;
}): ShellPlacement {
  const given: { -readonly [K in keyof ShellPlacement]: ShellPlacement[K] } = {};
  if (placement.sandbox !== undefined) given.sandbox = placement.sandbox;
  if (placement.container !== undefined) given.container = placement.container;
  if (placement.allowUnsandboxedCommands !== undefined) {
    given.allowUnsandboxedCommands = placement.allowUnsandboxedCommands;
  }
  return given;
}

function moduleOptions(
  placement: ShellPlacement,
  source: Pick<ShellModuleAsyncOptions, 'imports' | 'inject' | 'useFactory'>,
): ModuleOptions {
  const { BashTool, RestartTool } = shellTools(placement);
  const make = source.useFactory as (
    ...deps: unknown[]
  ) => Omit<ShellOptions, keyof ShellPlacement> | Promise<Omit<ShellOptions, keyof ShellPlacement>>;
  return {
    imports: [...(source.imports ?? [])],
    providers: [
      {
        provide: Shell,
        useFactory: async (...deps: never[]) =>
          new Shell({ ...(await make(...deps)), ...placement }),
        inject: [...(source.inject ?? [])],
        scope: 'session',
        // A 2026-07-28 client has no session: its shell lives under a handle it carries.
        handle: SHELL_HANDLE,
      },
    ],
    tools: [BashTool, RestartTool],
    exports: [Shell],
  };
}
