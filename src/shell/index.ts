/**
 * `agenttool/shell`: a persistent bash that runs each command in an OS sandbox (or a
 * container), the `bash` and `restart` tools on it, and the module that injects one
 * shell per client session. See docs/sandbox.md.
 */
export { Shell } from './shell';
export {
  type BeforeCommand,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type RunOptions,
  type ShellOptions,
  type ShellResult,
} from './shell-options';
export { type ContainerOptions } from './container';
export { SHELL_ENVIRONMENT_DEFAULTS, shellEnvironment } from './environment';
export { describeBytes, limitsEnforcement, type ShellLimits } from './process-limits';
export {
  CREDENTIAL_PATHS,
  DEFAULT_MAX_PROCESSES,
  defaultMaxMemoryBytes,
  homeFolders,
  type SandboxOptions,
  type SandboxPolicy,
  sandboxPolicy,
} from './sandbox-policy';
export { HOME_STARTUP_PATHS, homeDotEntries, homeStartupPaths } from './home-startup';
export { foldName, protectedFolderProblem, writeProtection } from './protected-paths';
export {
  checkSandboxSupport,
  probeSandboxSupport,
  sandboxProbeConditions,
  SandboxUnavailableError,
} from './sandbox-support';
export { removeOnHardExit } from './janitor';
export { warmSandbox } from './sandbox-runtime';
export {
  BashArgs,
  type BashToolInstance,
  ESCAPE_HATCH_ARGUMENT,
  PROCESS_GROUP_RECORD,
  type RestartToolInstance,
  SHELL_RESOURCE,
  type ShellTools,
  type ShellToolsOptions,
  UnsandboxableBashArgs,
  confinementOf,
  describeRun,
  runDetails,
  shellTools,
} from './tools';
export {
  SHELL_HANDLE,
  ShellModule,
  type ShellModuleAsyncOptions,
  type ShellModuleOptions,
  type ShellPlacement,
} from './shell.module';
