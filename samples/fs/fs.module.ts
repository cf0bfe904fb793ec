import { Module } from 'agenttool/di';
import { WorkspaceConfig, WorkspaceConfigModule } from '../workspace/config';
import { Sandbox } from './sandbox';
import { AppendFileTool, ReadFileTool, WriteFileTool } from './tools';

/** The file tools, confined to the workspace root: `read_file`, `write_file`, `append_file`. */
@Module({
  imports: [WorkspaceConfigModule],
  providers: [
    {
      provide: Sandbox,
      useFactory: (config: WorkspaceConfig) => new Sandbox(config.root),
      inject: [WorkspaceConfig],
    },
  ],
  tools: [ReadFileTool, WriteFileTool, AppendFileTool],
})
export class FsModule {}
