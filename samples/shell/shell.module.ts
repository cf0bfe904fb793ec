import { Module } from 'agenttool/di';
import { WorkspaceConfig, WorkspaceConfigModule } from '../workspace/config';
import { shellEnvironment } from './environment';
import { Shell } from './shell';
import { BashTool, RestartTool } from './tools';

/**
 * The shell tools, `bash` and `restart`, sharing one injected {@link Shell} that starts
 * in the workspace root with an allow-listed environment: `PATH`, `HOME`, `LANG`, `TERM`
 * and the names the configuration adds (`WORKSPACE_SHELL_ENV`), nothing else. The shell is session-scoped: each client session (each MCP
 * connection) gets its own, made on its first call and closed when the session ends;
 * calls without a session share one. `app.close()` closes every shell still open.
 */
@Module({
  imports: [WorkspaceConfigModule],
  providers: [
    {
      provide: Shell,
      useFactory: (config: WorkspaceConfig) =>
        new Shell({ cwd: config.root, env: shellEnvironment(process.env, config.shellEnv) }),
      inject: [WorkspaceConfig],
      scope: 'session',
    },
  ],
  tools: [BashTool, RestartTool],
})
export class ShellModule {}
