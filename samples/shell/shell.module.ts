import { Module } from 'agenttool/di';
import { WorkspaceConfig, WorkspaceConfigModule } from '../workspace/config';
import { Shell } from './shell';
import { BashTool, RestartTool } from './tools';

/**
 * The shell tools, `bash` and `restart`, sharing one injected {@link Shell} that starts
 * in the workspace root. The shell is session-scoped: each client session (each MCP
 * connection) gets its own, made on its first call and closed when the session ends;
 * calls without a session share one. `app.close()` closes every shell still open.
 */
@Module({
  imports: [WorkspaceConfigModule],
  providers: [
    {
      provide: Shell,
      useFactory: (config: WorkspaceConfig) => new Shell({ cwd: config.root }),
      inject: [WorkspaceConfig],
      scope: 'session',
    },
  ],
  tools: [BashTool, RestartTool],
})
export class ShellModule {}
