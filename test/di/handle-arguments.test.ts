/**
 * A tool reached through a state handle sees its own arguments only: the handle argument
 * is taken out of the call it is given and of its context's call, text and decoded value
 * alike, so that a tool refusing arguments it does not take accepts the handle.
 */
import 'reflect-metadata';
import { createContext, Param, refuseUnknownArguments, Tool, type ToolContext } from 'agenttool';
import { Inject, Injectable, Module, ToolApp } from 'agenttool/di';

@Injectable()
class Pad {
  close(): void {}
}

class PeekArgs {
  @Param('A word', { optional: true })
  word?: string;
}

@Tool({ name: 'peek', description: 'Says what call it was given', args: PeekArgs })
class Peek {
  constructor(@Inject(Pad) readonly pad: Pad) {}
  execute(args: PeekArgs, ctx: ToolContext): string {
    refuseUnknownArguments(ctx.call, 'peek', ['word']);
    return JSON.stringify({ word: args.word, args: ctx.call.args, value: ctx.call.value });
  }
}

@Module({
  tools: [Peek],
  providers: [
    { provide: Pad, useClass: Pad, scope: 'session', handle: { argument: 'pad_id', holds: 'pad' } },
  ],
})
class PadModule {}

it('takes the handle out of the call and the context the tool is given', async () => {
  const app = await ToolApp.create(PadModule);
  try {
    const tool = app.tools.lookup('peek');
    if (tool === undefined) throw new Error('no peek tool');
    const run = async (value: Record<string, string>) => {
      const call = { id: 'c', args: JSON.stringify(value), value };
      const session = { id: '', endsWithCall: true, onClose: () => undefined };
      return tool.execute(call, createContext({ call, session }));
    };
    const first = await run({ word: 'hi' });
    const id = first.structured?.['pad_id'];
    if (typeof id !== 'string') throw new Error(`no pad_id in ${JSON.stringify(first)}`);
    const again = await run({ word: 'again', pad_id: id });
    expect(typeof again.output === 'string' ? JSON.parse(again.output) : again.output).toEqual({
      word: 'again',
      args: '{"word":"again"}',
      value: { word: 'again' },
    });
  } finally {
    await app.close();
  }
});
