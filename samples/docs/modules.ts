import { Param, recordable, Resource, type ToolRecord, Tool } from 'agenttool';
import { CallRecorder, Inject, Injectable, InjectionToken, Module, ToolApp } from 'agenttool/di';

/** What the app is configured with, provided under a token of its own. */
export interface Config {
  readonly greeting: string;
}
export const CONFIG = new InjectionToken<Config>('CONFIG');

@Module({
  providers: [{ provide: CONFIG, useFactory: () => ({ greeting: 'Hello' }) }],
  exports: [CONFIG],
})
export class ConfigModule {}

/** One per client session (calls without a session share one), closed when it ends. */
@Injectable({ scope: 'session' })
export class Guestbook {
  readonly names: string[] = [];

  close(): void {
    this.names.length = 0;
  }
}

class GreetArgs {
  @Param('Who to greet') name!: string;
}

/** A tool is built by the container: its constructor says what it needs. */
@Tool({ name: 'greet', description: 'Greet someone and sign the guestbook', args: GreetArgs })
@Resource('guestbook') // its calls run in the model's order
export class SignAndGreet {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly guestbook: Guestbook,
    private readonly recorder: CallRecorder,
  ) {}

  async execute(args: GreetArgs): Promise<string> {
    this.guestbook.names.push(args.name);
    // Written for the call being served, durably before it resolves.
    await this.recorder.write(recordable('guestbook:signed', { name: args.name }));
    return `${this.config.greeting}, ${args.name}! You are guest ${this.guestbook.names.length}.`;
  }
}

@Module({ imports: [ConfigModule], tools: [SignAndGreet], providers: [Guestbook] })
export class GuestbookModule {}

/** Builds the app, runs one batch of calls, and closes the app (and the guestbook). */
export async function greetGuests(names: readonly string[]) {
  const records: ToolRecord[] = [];
  const app = await ToolApp.create(GuestbookModule, {
    recorder: (record) => void records.push(record),
    timeoutMs: 10_000, // the start (factories, hooks) fails with TIMEOUT past it
  });
  try {
    const outcomes = await app.results(names.map((name) => app.job('greet', { name })));
    const outputs = outcomes.map((o) => (o.error ? `Error: ${o.error.message}` : o.result.output));
    return { outputs, records };
  } finally {
    await app.close(); // closing hooks, then close() on what the app built, newest first
  }
}
