/**
 * `agenttool/workspace`: file tools confined to a root directory (`read_file`,
 * `write_file`, `append_file`) and the workspace app that serves them beside a
 * sandboxed persistent shell (`agenttool/shell`) on the same root.
 */
export {
  DEFAULT_WORKSPACE_FOLDER,
  WORKSPACE_ROOT_ENV,
  WORKSPACE_SHELL_ENV,
  WorkspaceConfig,
  WorkspaceConfigModule,
  workspaceConfigFromEnvironment,
} from './config';
export { FileChanges } from './file-changes';
export {
  FileRoot,
  type FileRootOptions,
  MAX_PATH_LENGTH,
  PathEscapeError,
  READ_BYTES_AT_ONCE,
  type ReadOptions,
  type ReadResult,
  type WriteOptions,
} from './file-root';
export {
  AppendFileArgs,
  AppendFileTool,
  DEFAULT_READ_BYTES,
  EditFileArgs,
  EditFileTool,
  MAX_READ_BYTES,
  ReadFileArgs,
  ReadFileTool,
  WriteFileArgs,
  WriteFileTool,
} from './file-tools';
export { FilesModule } from './files.module';
export { WorkspaceModule, type WorkspaceOptions } from './workspace.module';
