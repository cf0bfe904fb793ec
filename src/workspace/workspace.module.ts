import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Constructor } from 'agenttool';
import { Module } from 'agenttool/di';
import { ShellModule, type ShellOptions, shellEnvironment } from 'agenttool/shell';
import { WorkspaceConfig, WorkspaceConfigModule } from './config';
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
      imports: [WorkspaceConfigModule],
      inject: [WorkspaceConfig],
      useFactory: (config: WorkspaceConfig) => ({
        cwd: config.root,
        env: shellEnvironment(process.env, config.shellEnv),
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
    const sandbox = options.shell?.sandbox;
    @Module({
      imports: [
        ShellModule.forRoot({ ...options.shell, cwd: root }),
        // The shell's limits, kept by the file tools too: a shell unconfined on purpose
        // leaves them the defaults'.
        FilesModule.forRoot(given, sandbox === undefined || sandbox === false ? {} : { sandbox }),
      ],
    })
    class ConfiguredWorkspaceModule {}
    return ConfiguredWorkspaceModule;
  }
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
