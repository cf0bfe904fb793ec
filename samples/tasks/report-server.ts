// A tool that runs for a while, served so that each call of it becomes an MCP task.
import {
  Param,
  ProgressInfo,
  TaskSupport,
  Tool,
  type ToolContext,
  toolFromInstance,
} from 'agenttool';
import { type McpToolServer, serveTools } from 'agenttool/mcp';

class ReportArgs {
  @Param('How many sections to write', { type: 'integer' })
  sections!: number;
}

@Tool({ name: 'write_report', description: 'Write a long report', args: ReportArgs })
@TaskSupport('required') // every call is a task; 'optional' also serves clients without tasks
export class WriteReport {
  async execute(args: ReportArgs, ctx: ToolContext): Promise<string> {
    for (let section = 1; section <= args.sections; section++) {
      // Inside a task, progress becomes the task's status message.
      ctx.progress(new ProgressInfo(section, args.sections, `writing section ${section}`));
      await new Promise((resolve) => setTimeout(resolve, 100));
      ctx.signal.throwIfAborted(); // tasks/cancel aborts the signal
    }
    return `a report of ${args.sections} sections`;
  }
}

/** The report tool's server: a client polls its tasks every 100 ms, for up to 10 minutes. */
export function reportServer(): McpToolServer {
  return serveTools(toolFromInstance(new WriteReport()), {
    tasks: { pollIntervalMs: 100, ttlMs: 10 * 60 * 1000 },
  });
}

// `node report-server.js <port>` serves it on http://127.0.0.1:<port>/mcp.
if (require.main === module) {
  void reportServer()
    .listenHttp({ port: Number(process.argv[2] ?? 3000) })
    .then((listener) => console.log(`serving ${listener.url}`));
}
