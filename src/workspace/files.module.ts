import type { Constructor } from 'agenttool';
import { Module } from 'agenttool/di';
import { WorkspaceConfig, WorkspaceConfigModule } from './config';
import { FileRoot, type FileRootOptions } from './file-root';
import { AppendFileTool, EditFileTool, ReadFileTool, WriteFileTool } from './file-tools';

/**
 * The file tools, confined to the workspace root: `read_file`, `write_file`,
 * `edit_file`, `append_file`. It exports the root, whose file changes under way
 * (`FileRoot.changes`) the workspace's shell commands wait for. `FilesModule` reads the root from the environment (see
 * {@link WorkspaceConfigModule}); `FilesModule.forRoot(root)` takes it as given.
 */
@Module({
  imports: [WorkspaceConfigModule],
  providers: [
    {
      provide: FileRoot,
      useFactory: (config: WorkspaceConfig) => new FileRoot(config.root),
      inject: [WorkspaceConfig],
    },
  ],
  tools: [ReadFileTool, WriteFileTool, EditFileTool, AppendFileTool],
  exports: [FileRoot],
})
export class FilesModule {
  /**
   * The file tools on `root`, an existing directory (checked when the app starts), with
   * `options` (the sandbox options of the shell beside them, whose limits they keep).
   */
  static forRoot(root: string, options: FileRootOptions = {}): Constructor {
    @Module({
      providers: [{ provide: FileRoot, useFactory: () => new FileRoot(root, options) }],
      tools: [ReadFileTool, WriteFileTool, EditFileTool, AppendFileTool],
      exports: [FileRoot],
    })
    class ConfiguredFilesModule {}
    return ConfiguredFilesModule;
  }
}
