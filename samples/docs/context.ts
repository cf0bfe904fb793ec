import {
  createContext,
  currentContext,
  Executor,
  outputText,
  Param,
  ProgressInfo,
  recordable,
  type Result,
  text,
  Tool,
  type ToolContext,
  toolFromInstance,
  type ToolRecord,
} from 'agenttool';

class ImportArgs {
  @Param('How many rows to import', { type: 'integer' }) rows!: number;
}

/** A long import that asks before a large one, reports progress, logs and records. */
@Tool({ name: 'import_rows', description: 'Import rows into the table', args: ImportArgs })
export class ImportRows {
  async execute(args: ImportArgs, ctx: ToolContext): Promise<Result> {
    // The model's call: its id, the arguments as raw JSON, the idempotency key if any.
    ctx.logMessage('info', `${ctx.call.id}: ${args.rows} rows`);
    if (args.rows > 100) {
      // With nobody to ask (no elicitor installed), the answer is { action: 'cancel' }.
      const answer = await ctx.ask({
        message: `Import ${args.rows} rows?`,
        schema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
      });
      if (answer.action !== 'accept' || answer.content?.confirm !== true) {
        return text('Not imported: the user said no');
      }
    }
    ctx.progress('Checking the table'); // a message
    for (let done = 0; done < args.rows; done += 50) {
      ctx.signal.throwIfAborted(); // the host's interrupt: stop what this call started
      ctx.progress(new ProgressInfo(done, args.rows, `${done} of ${args.rows} rows`));
      await importBatch(Math.min(50, args.rows - done));
    }
    ctx.progress(text('All rows written; indexing')); // a whole Result: output, details
    // Written durably before it resolves; a no-op when the host installed no recorder.
    const session = ctx.session?.id ?? '';
    await ctx.record(recordable('import:rows', { rows: args.rows, session }));
    return text(`Imported ${args.rows} rows`);
  }
}

/** Code deep inside a call finds the call's context without being handed it. */
async function importBatch(size: number): Promise<void> {
  currentContext()?.logMessage('debug', `batch of ${size}`);
  await new Promise((resolve) => setImmediate(resolve));
}

/** The host's side: what it installs on the context, and the progress it receives. */
export async function importAsHost(rows: number, confirm: boolean) {
  const progress: string[] = [];
  const log: string[] = [];
  const questions: string[] = [];
  const records: ToolRecord[] = [];
  const context = createContext({
    recorder: (record) => void records.push(record),
    elicitor: (question) => {
      questions.push(question.message);
      return { action: 'accept', content: { confirm } };
    },
    log: (level, data) => void log.push(`${level}: ${String(data)}`),
  });
  const tool = toolFromInstance(new ImportRows());
  const call = { id: 'call_1', args: JSON.stringify({ rows }) };
  let output = '';
  for await (const event of new Executor().execute([{ tool, call }], { context })) {
    if (!event.final) progress.push(outputText(event.result.output));
    else output = event.error ? `Error: ${event.error.message}` : outputText(event.result.output);
  }
  return { output, progress, records, log, questions };
}
