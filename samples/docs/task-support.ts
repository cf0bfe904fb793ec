import { newTool, Param, TaskSupport, Tool, type ToolContext } from 'agenttool';

class MigrateArgs {
  @Param('The schema version to migrate to') version!: number;
}

/** Runs for minutes: a client that takes tasks gets it as a task. */
@Tool({ name: 'migrate', description: 'Migrate the database', args: MigrateArgs })
@TaskSupport('required') // or 'optional', or 'never' (the default)
export class Migrate {
  execute(args: MigrateArgs, ctx: ToolContext): string {
    ctx.progress(`migrating to version ${args.version}`);
    return `migrated to version ${args.version}`;
  }
}

/** A tool built without a class declares it in its definition. */
export const crawl = newTool({
  name: 'crawl',
  description: 'Crawl a site and report its pages',
  parameters: undefined,
  taskSupport: 'optional',
  execute: () => ({ output: 'crawled 0 pages' }),
});
