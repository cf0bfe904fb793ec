import { Param, Tool } from 'agenttool';
import { Inject, Injectable, Module } from 'agenttool/di';

/** A scratchpad: what one conversation has noted so far. */
@Injectable()
export class Scratchpad {
  readonly lines: string[] = [];
}

class NoteArgs {
  @Param('The line to add')
  line!: string;
}

@Tool({
  name: 'note',
  description: 'Adds a line to the scratchpad and shows it all.',
  args: NoteArgs,
})
export class NoteTool {
  constructor(@Inject(Scratchpad) private readonly pad: Scratchpad) {}

  execute(args: NoteArgs): string {
    this.pad.lines.push(args.line);
    return this.pad.lines.join('\n');
  }
}

@Module({
  tools: [NoteTool],
  providers: [
    {
      provide: Scratchpad,
      useClass: Scratchpad,
      // One per session, and for clients without one (MCP 2026-07-28), one per handle:
      // `note` takes `pad_id`, minted with the first call's result.
      scope: 'session',
      handle: { argument: 'pad_id', holds: 'scratchpad', idleTimeoutMs: 10 * 60_000 },
    },
  ],
})
export class ScratchpadModule {}
