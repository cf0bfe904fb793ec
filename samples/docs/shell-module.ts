import { Module } from 'agenttool/di';
import { ShellModule } from 'agenttool/shell';

/**
 * The bash and restart tools, one sandboxed shell per client session, starting in the
 * project folder; its commands may reach the npm registry and nothing else.
 */
@Module({
  imports: [
    ShellModule.forRoot({
      cwd: process.env.PROJECT_DIR ?? process.cwd(),
      sandbox: { allowedHosts: ['registry.npmjs.org'] },
    }),
  ],
})
export class ProjectShellModule {}
