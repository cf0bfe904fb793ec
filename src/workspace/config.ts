import { promises as fsPromises } from 'node:fs';
import { join, resolve } from 'node:path';
import { Module } from 'agenttool/di';

/** The environment variable that names the workspace root directory. */
export const WORKSPACE_ROOT_ENV = 'WORKSPACE_ROOT';

/**
 * The environment variable that names, separated by commas or spaces, the variables of
 * this process's environment the shell gets besides `PATH`, `HOME`, `LANG` and `TERM`.
 */
export const WORKSPACE_SHELL_ENV = 'WORKSPACE_SHELL_ENV';

/** The folder, under the working directory, used as the root when none is configured. */
export const DEFAULT_WORKSPACE_FOLDER = 'workspace';

/**
 * Where the workspace tools work: the root the file tools are confined to and the
 * directory the shell starts in.
 */
export class WorkspaceConfig {
  constructor(
    /** An absolute path to an existing directory. */
    readonly root: string,
    /**
     * The names of the variables of this process's environment the shell gets besides
     * `PATH`, `HOME`, `LANG` and `TERM`; the rest of the environment it never sees.
     */
    readonly shellEnv: readonly string[] = [],
  ) {}
}

/**
 * The configuration from the environment: `WORKSPACE_ROOT` names the root (relative
 * paths are taken from `cwd`), which must be an existing directory. Without it the root
 * is `<cwd>/workspace`, created when missing. `WORKSPACE_SHELL_ENV` names the variables
 * the shell gets besides the default ones.
 */
export async function workspaceConfigFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<WorkspaceConfig> {
  const shellEnv = shellEnvNames(env[WORKSPACE_SHELL_ENV] ?? '');
  const configured = env[WORKSPACE_ROOT_ENV]?.trim() ?? '';
  if (configured === '') {
    const root = join(resolve(cwd), DEFAULT_WORKSPACE_FOLDER);
    await fsPromises.mkdir(root, { recursive: true });
    return new WorkspaceConfig(root, shellEnv);
  }
  const root = resolve(cwd, configured);
  const info = await fsPromises.stat(root).catch(() => undefined);
  if (info !== undefined && !info.isDirectory()) {
    throw new Error(
      `${WORKSPACE_ROOT_ENV}=${JSON.stringify(configured)}: ${JSON.stringify(root)} is a file, not a directory; set ${WORKSPACE_ROOT_ENV} to the folder to work in`,
    );
  }
  if (info === undefined) {
    throw new Error(
      `${WORKSPACE_ROOT_ENV}=${JSON.stringify(configured)}: ${JSON.stringify(root)} is not an existing directory; create it, or set ${WORKSPACE_ROOT_ENV} to one (unset, the root is ./${DEFAULT_WORKSPACE_FOLDER})`,
    );
  }
  return new WorkspaceConfig(root, shellEnv);
}

function shellEnvNames(text: string): string[] {
  const names = text.split(/[\s,]+/).filter((name) => name !== '');
  const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  if (bad !== undefined) {
    throw new Error(
      `${WORKSPACE_SHELL_ENV}: ${JSON.stringify(bad)} is not an environment variable name; list names separated by commas, e.g. ${WORKSPACE_SHELL_ENV}=GOPATH,NODE_ENV`,
    );
  }
  return names;
}

/** Provides {@link WorkspaceConfig}, read from the environment when the app is created. */
@Module({
  providers: [{ provide: WorkspaceConfig, useFactory: () => workspaceConfigFromEnvironment() }],
  exports: [WorkspaceConfig],
})
export class WorkspaceConfigModule {}
