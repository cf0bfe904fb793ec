import {
  AgentToolError,
  type Answer,
  type Elicitation,
  newTool,
  ProgressInfo,
  recordable,
  type Tool,
  type ToolContext,
} from 'agenttool';

/** Small tools built with core `newTool`, one per mapping the server makes. */
export function mappingTools(hooks: { onContext?: (ctx: ToolContext) => void } = {}): Tool[] {
  return [
    newTool({
      name: 'upper',
      description: 'Upper-cases text',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'What to upper-case' } },
        required: ['text'],
      },
      annotations: { title: 'Upper', readOnly: true },
      execute: (call, ctx) => {
        hooks.onContext?.(ctx);
        return { output: (JSON.parse(call.args) as { text: string }).text.toUpperCase() };
      },
    }),
    newTool({
      name: 'bare',
      description: 'Takes nothing',
      execute: (call) => ({ output: `id=${call.id} args=${call.args}` }),
    }),
    newTool({
      name: 'fails',
      description: 'Always fails',
      execute: () => {
        throw new Error('disk on fire');
      },
    }),
    newTool({
      name: 'fails_with_record',
      description: 'Fails with recordable details',
      execute: () => {
        throw Object.assign(new AgentToolError('NO_TOOL', 'gone'), {
          details: recordable('test:failure', { why: 'gone' }),
        });
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
      name: 'recorded',
      description: 'Returns recordable details',
      execute: () => ({
        output: 'done',
        details: recordable('shell:process-group', { z: 1, a: 9007199254740993n.toString() }),
      }),
    }),
    newTool({
      name: 'bad_record',
      description: 'Details that cannot be recorded',
      execute: () => ({ output: 'done', details: { recordNS: () => '' } }),
    }),
    Object.assign(
      newTool({
        name: 'stats',
        description: 'Structured output',
        execute: () => ({ output: '{"n":3}' }),
      }),
      {
        outputSchema: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
        },
      },
    ),
    newTool({
      name: 'progress',
      description: 'Reports progress',
      execute: (_call, ctx) => {
        ctx.progress('one');
        ctx.progress(new ProgressInfo(1, 2, 'half way'));
        ctx.progress({ output: 'nearly', details: new ProgressInfo(2) });
        return { output: 'done' };
      },
    }),
    newTool({
      name: 'ask',
      description: 'Asks the user',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string' } },
        required: [],
      },
      execute: async (call, ctx) => {
        const { url } = JSON.parse(call.args) as { url?: string };
        const question: Elicitation =
          url === undefined
            ? {
                message: 'Confirm?',
                schema: {
                  type: 'object',
                  properties: { confirm: { type: 'boolean' } },
                  required: ['confirm'],
                },
              }
            : { message: 'Sign in', url };
        const answer: Answer = await ctx.ask(question);
        return { output: JSON.stringify(answer) };
      },
    }),
    newTool({
      name: 'logs',
      description: 'Logs at two levels',
      execute: (_call, ctx) => {
        ctx.logMessage('debug', 'a debug line');
        ctx.logMessage('warning', { text: 'a warning' });
        return { output: 'logged' };
      },
    }),
    newTool({
      name: 'session',
      description: 'Reports its session',
      execute: (_call, ctx) => {
        hooks.onContext?.(ctx);
        return { output: JSON.stringify({ id: ctx.session?.id, client: ctx.session?.client }) };
      },
    }),
  ];
}
