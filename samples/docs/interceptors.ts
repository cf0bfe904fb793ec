import {
  Annotations,
  type CallHandler,
  type CallLogEntry,
  CallLogSink,
  type Interceptor,
  LoggingInterceptor,
  Param,
  RateLimitInterceptor,
  type Result,
  ResultCacheInterceptor,
  ResultSizeInterceptor,
  type Session,
  TimeoutInterceptor,
  Tool,
  type ToolExecutionContext,
  UseInterceptors,
} from 'agenttool';
import { Injectable, Module, ToolApp } from 'agenttool/di';

/** Where the app's call log goes: the built-in LoggingInterceptor finds it by its token. */
@Injectable()
export class MemoryLog extends CallLogSink {
  readonly entries: CallLogEntry[] = [];
  write(entry: CallLogEntry): void {
    this.entries.push(entry);
  }
}

/** An interceptor of our own, built once with what it needs injected: it shapes errors. */
@Injectable()
export class FriendlyErrors implements Interceptor {
  constructor(private readonly log: MemoryLog) {}

  async intercept(context: ToolExecutionContext, next: CallHandler): Promise<Result> {
    try {
      return await next.handle();
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'NotFound') throw error;
      const { word } = context.args as LookupArgs;
      return { output: `no entry for ${word} (after ${this.log.entries.length} calls)` };
    }
  }
}

class LookupArgs {
  @Param('The word to look up') word!: string;
}

@Tool({ name: 'define', description: 'Look a word up in the dictionary', args: LookupArgs })
@Annotations({ readOnly: true }) // so its results may be cached
@UseInterceptors(FriendlyErrors) // the tool's own, innermost
export class Define {
  calls = 0;

  execute(args: LookupArgs): string {
    this.calls++;
    if (args.word === 'zzz') throw Object.assign(new Error('no entry'), { name: 'NotFound' });
    return `${args.word}: a word`;
  }
}

@Module({
  tools: [Define],
  providers: [Define, MemoryLog, { provide: CallLogSink, useExisting: MemoryLog }],
  // The module's: around each call of its tools (and of the modules it imports).
  interceptors: [
    new ResultCacheInterceptor({ ttlMs: 60_000 }), // read-only tools, per caller
    new ResultSizeInterceptor({ maxBytes: 64 * 1024 }),
  ],
})
export class DictionaryModule {}

/** Builds the app with its global interceptors, looks each word up in turn, and closes it. */
export async function lookUp(words: readonly string[]) {
  const app = await ToolApp.create(DictionaryModule, {
    // The app's: first around every call, served or in a batch.
    interceptors: [
      LoggingInterceptor, // a class: built by the app, its sink injected
      new RateLimitInterceptor({ limit: 30, windowMs: 60_000 }), // per caller, per tool
      new TimeoutInterceptor({ ms: 10_000 }),
    ],
  });
  const session: Session = { id: 'reader', onClose: () => undefined };
  try {
    const outputs: unknown[] = [];
    for (const word of words) {
      const [outcome] = await app.results([app.job('define', { word })], { session });
      outputs.push(outcome?.error ? `Error: ${outcome.error.message}` : outcome?.result.output);
    }
    const define = await app.get(Define);
    const log = await app.get(MemoryLog);
    return {
      outputs,
      ran: define.calls,
      logged: log.entries.map((entry) => `${entry.tool} ${entry.outcome}`),
    };
  } finally {
    await app.close();
  }
}
