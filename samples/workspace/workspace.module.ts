import { Module } from 'agenttool/di';
import { FsModule } from '../fs/fs.module';
import { ShellModule } from '../shell/shell.module';
import { WorkspaceConfigModule } from './config';

/**
 * The workspace app: a persistent shell and file tools on one root directory, read from
 * the environment (`WORKSPACE_ROOT`, by default `./workspace`; see `config.ts`). Set
 * `AGENTTOOL_SANDBOX` to the sandbox's name only when the process runs inside one.
 *
 * ```ts
 * const app = await ToolApp.create(WorkspaceModule);
 * // ... serve app, or run batches with app.results(...)
 * await app.close(); // ends every shell
 * ```
 */
@Module({ imports: [WorkspaceConfigModule, ShellModule, FsModule] })
export class WorkspaceModule {}
