/**
 * `agenttool/workspace`: the workspace app (a persistent, sandboxed shell and file tools
 * on one root directory), its configuration, and the file tools on their own.
 */
export {
  DEFAULT_WORKSPACE_FOLDER,
  WORKSPACE_ROOT_ENV,
  WORKSPACE_SHELL_ENV,
  WorkspaceConfig,
  WorkspaceConfigModule,
  workspaceConfigFromEnvironment,
} from './config';
export { FileRoot, MAX_PATH_LENGTH, PathEscapeError, type ReadResult } from './file-root';
export {
  AppendFileArgs,
  AppendFileTool,
  DEFAULT_READ_BYTES,
  MAX_READ_BYTES,
  ReadFileArgs,
  ReadFileTool,
  WriteFileArgs,
  WriteFileTool,
} from './file-tools';
export { FilesModule } from './files.module';
export { WorkspaceModule, type WorkspaceOptions } from './workspace.module';
