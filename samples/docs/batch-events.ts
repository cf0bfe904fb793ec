import {
  Annotations,
  Executor,
  type Job,
  outputText,
  Param,
  Resource,
  Tool,
  type ToolContext,
  toolFromInstance,
} from 'agenttool';

class NoteArgs {
  @Param('The line to add') line!: string;
}

/** Appends to one list: its calls name the resource `notes`, so they run in the model's order. */
@Tool({ name: 'add_note', description: 'Add a line to the notes', args: NoteArgs })
@Resource('notes')
export class AddNote {
  constructor(private readonly notes: string[]) {}

  async execute(args: NoteArgs, ctx: ToolContext): Promise<string> {
    ctx.progress(`adding "${args.line}"`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    this.notes.push(args.line);
    return `${this.notes.length} lines`;
  }
}

class WordArgs {
  @Param('The word to look up') word!: string;
}

/** Reads nothing shared: it runs alongside the chain. */
@Tool({ name: 'define', description: 'Define a word', args: WordArgs })
@Annotations({ readOnly: true })
export class Define {
  execute(args: WordArgs): string {
    return `${args.word}: a word`;
  }
}

/** One model turn's three calls, and what the host sees of them, event by event. */
export async function runNotesBatch() {
  const notes: string[] = [];
  const addNote = toolFromInstance(new AddNote(notes));
  const define = toolFromInstance(new Define());
  const jobs: Job[] = [
    { tool: addNote, call: { id: 'call_1', args: '{"line":"first"}' } },
    { tool: define, call: { id: 'call_2', args: '{"word":"chain"}' } },
    { tool: addNote, call: { id: 'call_3', args: '{"line":"second"}' } },
  ];
  const executor = new Executor({ maxParallel: 8 });
  const chains = executor.chains(jobs); // [[0, 2], [1]]: #0 then #2 on "notes"; #1 alone
  const events: string[] = [];
  for await (const event of executor.execute(jobs)) {
    const what = event.error ? `Error: ${event.error.message}` : outputText(event.result.output);
    events.push(`${event.final ? 'final' : 'progress'} #${event.index}: ${what}`);
  }
  return { chains, events, notes };
}
