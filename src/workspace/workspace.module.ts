import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Constructor } from 'agenttool';
import { Module } from 'agenttool/di';
import type { Session } from 'agenttool';
import {
  Shell,
  ShellModule,
  type ShellOptions,
  type ShellPlacement,
  shellEnvironment,
} from 'agenttool/shell';
import { WorkspaceConfig, WorkspaceConfigModule } from './config';
import { type FileChanges } from './file-changes';
import { FileRoot } from './file-root';
import { FilesModule } from './files.module';

/** How {@link WorkspaceModule.forRoot} sets up a workspace. */
export interface WorkspaceOptions {
  /**
   * The workspace: an existing directory. The file tools are confined to it; the shell
   * starts in it and, in its sandbox, may write nothing else but its private temp folder.
   */
  readonly root: string;
  /**
   * The shell's other options: its sandbox's policy (or `false`, on purpose), a
   * container, the escape hatch (`allowUnsandboxedCommands`), its environment (by
   * default `PATH`, `HOME`, `LANG` and `TERM` of this process), and its timeouts.
   */
  readonly shell?: Omit<ShellOptions, 'cwd'>;
}

/**
 * The workspace app: a persistent, sandboxed shell and file tools on one root directory.
 * `WorkspaceModule` reads its configuration from the environment when the app is
 * created (`WORKSPACE_ROOT`, by default `./workspace`; `WORKSPACE_SHELL_ENV`; see
 * {@link workspaceConfigFromEnvironment}); `WorkspaceModule.forRoot(options)` takes it
 * as given.
 *
 * ```ts
 * const app = await ToolApp.create(WorkspaceModule.forRoot({ root: '/srv/project' }));
 * // ... serve app, or run batches with app.results(...)
 * await app.close(); // ends every shell
 * ```
 */
@Module({
  imports: [
    WorkspaceConfigModule,
    ShellModule.forRootAsync({
      imports: [WorkspaceConfigModule, FilesModule],
      inject: [WorkspaceConfig, FileRoot],
      useFactory: (config: WorkspaceConfig, files: FileRoot) => ({
        cwd: config.root,
        env: shellEnvironment(process.env, config.shellEnv),
        beforeCommand: afterFileChanges(files.changes),
      }),
    }),
    FilesModule,
  ],
})
export class WorkspaceModule {
  /** The workspace on `options.root`, which must be an existing directory (checked now). */
  static forRoot(options: WorkspaceOptions): Constructor {
    const root = existingDirectory(options.root);
    // The file tools take paths under the root as given too (a symbolic link, say, as a
    // host names the folder) besides the real ones the shell prints.
    const given = resolve(options.root);
    const shell = { ...options.shell, cwd: root };
    // Bad shell options throw here, as ShellModule.forRoot's do.
    new Shell(shell);
    const { sandbox, container, allowUnsandboxedCommands, beforeCommand, ...rest } = shell;
    // The shell's limits, kept by the file tools too: a shell unconfined on purpose
    // leaves them the defaults'.
    const files = FilesModule.forRoot(
      given,
      sandbox === undefined || sandbox === false ? {} : { sandbox },
    );
    const placement: { -readonly [K in keyof ShellPlacement]: ShellPlacement[K] } = {};
    if (sandbox !== undefined) placement.sandbox = sandbox;
    if (container !== undefined) placement.container = container;
    if (allowUnsandboxedCommands !== undefined) {
      placement.allowUnsandboxedCommands = allowUnsandboxedCommands;
    }
    @Module({
      imports: [
        ShellModule.forRootAsync({
          placement,
          imports: [files],
          inject: [FileRoot],
          useFactory: (files: FileRoot) => ({
            ...rest,
            beforeCommand: afterFileChanges(files.changes, beforeCommand),
          }),
        }),
        files,
      ],
    })
    class ConfiguredWorkspaceModule {}
    return ConfiguredWorkspaceModule;
  }
}

/**
 * What the workspace's commands wait for: the file changes their session sent before
 * them (a script written, then run, sent at once), then what the options add.
 */
function afterFileChanges(
  changes: FileChanges,
  given?: ShellOptions['beforeCommand'],
): NonNullable<ShellOptions['beforeCommand']> {
  return (session: Session | undefined, signal: AbortSignal) => {
    const settled = changes.settled(session);
    if (given === undefined) return settled;
    if (settled === undefined) return given(session, signal);
    return settled.then(() => given(session, signal));
  };
}

function existingDirectory(path: string): string {
  if (typeof path !== 'string' || path === '') {
    throw new TypeError('root must be the path of an existing directory');
  }
  const root = resolve(path);
  let info: ReturnType<typeof statSync> | undefined;
  try {
    info = statSync(root);
  } catch {
    // reported below
  }
  if (info === undefined) {
    throw new TypeError(`root ${JSON.stringify(root)} does not exist; create it first`);
  }
  if (!info.isDirectory()) {
    throw new TypeError(
      `root ${JSON.stringify(root)} is a file, not a directory; give the folder to work in (${JSON.stringify(dirname(root))}, say)`,
    );
  }
  return realpathSync(root);
}
