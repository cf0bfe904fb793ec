/**
 * Our side of the shared fixture set: the tools the Go peer serves (peer/serve.go,
 * FixtureTools), written with our API, so that one host script reads the same from
 * either server. `everything` is the golden corpus's shape as a decorated class
 * (test/decorators/golden.test.ts), the others are made from values.
 */
import {
  type Elicitation,
  newTool,
  Param,
  ProgressInfo,
  type RecordFunc,
  recordable,
  Tool as ToolClass,
  type Tool,
  toolFromInstance,
  type ToolRecord,
} from 'agenttool';

class Nested {
  @Param() name!: string;
  @Param('', { items: 'string' }) Tags!: string[];
}

enum Level {
  Low = 'low',
  Medium = 'medium',
  High = 'high',
}

class Everything {
  @Param() str!: string;
  @Param('an integer', { type: 'integer' }) int!: number;
  @Param('', { type: 'integer' }) uint!: number;
  @Param() float!: number;
  @Param() bool!: boolean;
  @Param('', { enum: Level }) level!: Level;
  @Param('', { type: 'integer', enum: [1, 2, 3], optional: true, nullable: true })
  count?: 1 | 2 | 3 | null;
  @Param() when!: Date;
  @Param('', { type: 'any', optional: true }) raw?: unknown;
  @Param('', { type: 'any', optional: true }) any?: unknown;
  @Param('', { optional: true }) bytes?: Buffer;
  @Param('', { items: Nested }) list!: Nested[];
  @Param('', { items: ['number'], optional: true }) matrix?: number[][];
  @Param() nested!: Nested;
  @Param('', { type: () => Nested, optional: true, nullable: true }) pointer?: Nested | null;
  @Param('', { values: 'string', optional: true }) labels?: Record<string, string>;
  @Param('', { type: 'integer', optional: true }) duration?: number;
}

@ToolClass({
  name: 'everything',
  description: 'Every shape of the golden corpus',
  args: Everything,
})
class EverythingTool {
  execute(): string {
    return 'received';
  }
}

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};

/** The benchmarks' five-argument tool (bench/mcp-noop.ts), which the Go peer serves too. */
export const NOOP_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Where' },
    count: { type: 'integer', description: 'How many' },
    ratio: { type: 'number', description: 'A ratio' },
    enabled: { type: 'boolean', description: 'On or off' },
    mode: { type: 'string', enum: ['fast', 'safe', 'dry'], description: 'Which mode' },
  },
  required: ['path', 'count', 'ratio', 'enabled', 'mode'],
};

/** The record the records tool writes as it starts, through the server's recorder. */
export const START_RECORD = recordable('shell:process-group', {
  z: 1,
  a: 9007199254740991,
  note: '<b>&',
  at: 'start',
});

/** The details the records tool ends with; its record is what crosses MCP. */
export const FINAL_RECORD = recordable('shell:process-group', {
  z: 2,
  a: 9007199254740991,
  note: '<b>&',
  at: 'end',
});

export interface OurFixtures {
  readonly tools: Tool[];
  /** What the tools recorded while they ran, through the server's recorder. */
  readonly recorded: ToolRecord[];
  readonly recorder: RecordFunc;
}

export function ourFixtures(): OurFixtures {
  const recorded: ToolRecord[] = [];
  const tools: Tool[] = [
    toolFromInstance(new EverythingTool()),
    newTool({
      name: 'upper',
      description: 'Upper-cases text',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'What to upper-case' } },
        required: ['text'],
      },
      execute: (call) => ({
        output: (JSON.parse(call.args) as { text: string }).text.toUpperCase(),
      }),
    }),
    newTool({
      name: 'fails',
      description: 'Always fails',
      execute: () => {
        throw new Error('disk on fire');
      },
    }),
    newTool({
      name: 'panics',
      description: 'A programming fault',
      execute: () => {
        const value = undefined as unknown as { x: number };
        return { output: String(value.x) };
      },
    }),
    newTool({
      name: 'progress',
      description: 'Reports progress',
      execute: (_call, ctx) => {
        ctx.progress('one');
        ctx.progress({ output: 'half way', details: new ProgressInfo(1, 2, 'half way') });
        ctx.progress({ output: 'nearly', details: new ProgressInfo(2) });
        return { output: 'done' };
      },
    }),
    newTool({
      name: 'records',
      description: 'Writes a record as it starts and returns another',
      execute: async (_call, ctx) => {
        await ctx.record(START_RECORD);
        return { output: 'done', details: FINAL_RECORD };
      },
    }),
    newTool({
      name: 'asks',
      description: 'Asks before it deploys',
      execute: async (_call, ctx) => {
        const question: Elicitation = { message: 'deploy to production?', schema: confirmSchema };
        const answer = await ctx.ask(question);
        const content = answer.content === undefined ? '' : JSON.stringify(answer.content);
        return { output: `${answer.action} ${content}` };
      },
    }),
    newTool({
      name: 'annotated',
      description: 'Looks things up',
      annotations: { title: 'Look up', readOnly: true, idempotent: true },
      execute: () => ({ output: 'looked' }),
    }),
    newTool({
      name: 'picture',
      description: 'Mixed content',
      execute: () => ({
        output: [
          { type: 'input_text', text: 'caption' },
          { type: 'input_image', image_url: 'data:image/png;base64,AQID' },
          { type: 'input_file', filename: 'notes.bin', file_data: 'CQ==' },
          { type: 'input_file', filename: 'audio.wav', file_data: 'UklGRg==' },
          { type: 'input_file', filename: 'report.pdf', file_url: 'https://example.com/r.pdf' },
          { type: 'input_image', image_url: 'https://example.com/cat.png' },
          { type: 'refusal', refusal: 'no' },
        ],
      }),
    }),
    newTool({
      name: 'noop',
      description: 'Does nothing with five arguments.',
      parameters: NOOP_SCHEMA,
      execute: () => ({ output: 'ok' }),
    }),
  ];
  return { tools, recorded, recorder: (record) => void recorded.push(record) };
}
