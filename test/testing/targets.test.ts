/**
 * What agenttool/testing serves: an app (left open), a module (built and closed with the
 * client), @Tool classes (built with injection), tools and instances; what it refuses;
 * sessions kept apart in the 2025 era; and the scripted elicitor on its own.
 */
import {
  createContext,
  newTool,
  Param,
  recordable,
  type ToolRecord,
  Tool,
  type ToolContext,
  toolFromInstance,
} from 'agenttool';
import { CallRecorder, Injectable, Module, ToolApp } from 'agenttool/di';
import { scriptedElicitor, ScriptError, testClient } from 'agenttool/testing';

/** Counts its instances and closes, per session. */
@Injectable({ scope: 'session' })
class Tally {
  static closed = 0;
  count = 0;
  close(): void {
    Tally.closed++;
  }
}

@Tool({ name: 'tally', description: 'Count one more' })
class Count {
  constructor(
    private readonly tally: Tally,
    private readonly recorder: CallRecorder,
  ) {}

  async execute(): Promise<string> {
    this.tally.count++;
    await this.recorder.write(recordable('tally:counted', { count: this.tally.count }));
    return String(this.tally.count);
  }
}

@Module({ tools: [Count], providers: [Tally] })
class TallyModule {}

/** Injects the call's recorder, which every app provides. */
@Tool({ name: 'stamp', description: 'Stamp the call' })
class Stamp {
  constructor(private readonly recorder: CallRecorder) {}

  async execute(): Promise<string> {
    await this.recorder.write(recordable('stamp:stamped', {}));
    return 'stamped';
  }
}

class NameArgs {
  @Param('Who') name!: string;
}

@Tool({ name: 'hello', description: 'Say hello', args: NameArgs })
class Hello {
  execute(args: NameArgs): string {
    return `hello ${args.name}`;
  }
}

describe('the targets of a test client', () => {
  it('builds an app from a module, with its options, and closes it with the client', async () => {
    const seen: ToolRecord[] = [];
    const closedBefore = Tally.closed;
    const client = await testClient(TallyModule, {
      app: { recorder: (record) => void seen.push(record) },
    });
    try {
      expect(client.app).toBeInstanceOf(ToolApp);
      expect((await client.call('tally')).records).toEqual([
        { ns: 'tally:counted', data: '{"count":1}' },
      ]);
      // The app's own recorder still gets every record.
      expect(seen).toEqual([{ ns: 'tally:counted', data: '{"count":1}' }]);
    } finally {
      await client.close();
    }
    expect(Tally.closed).toBeGreaterThan(closedBefore);
  });

  it("serves the test's own app and leaves it open", async () => {
    const app = await ToolApp.create(TallyModule);
    try {
      const client = await testClient(app);
      expect(client.app).toBe(app);
      await client.close();
      expect(app.tools.lookup('tally')).toBeDefined();
      const outcomes = await app.results([app.job('tally')]);
      expect(outcomes[0]?.error).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('keeps 2025-era sessions apart: two clients of one app, a tally each', async () => {
    const app = await ToolApp.create(TallyModule);
    const ada = await testClient(app, { protocol: 'legacy' });
    const bob = await testClient(app, { protocol: 'legacy' });
    try {
      expect((await ada.call('tally')).text).toBe('1');
      expect((await ada.call('tally')).text).toBe('2');
      expect((await bob.call('tally')).text).toBe('1');
    } finally {
      await ada.close();
      await bob.close();
      await app.close();
    }
  });

  it('builds @Tool classes in an app of their own, beside tools and instances', async () => {
    const plain = newTool({
      name: 'plain',
      description: 'A plain tool',
      parameters: undefined,
      execute: () => ({ output: 'plain' }),
    });
    const client = await testClient([Stamp, plain, new Hello()]);
    try {
      // The classes' tools first, then the others in order.
      expect((await client.list()).map((tool) => tool.name)).toEqual(['stamp', 'plain', 'hello']);
      expect((await client.call('stamp')).records).toEqual([{ ns: 'stamp:stamped', data: '{}' }]);
    } finally {
      await client.close();
    }
    // A class that injects what no module provides: the app's own error, naming it.
    await expect(testClient(Count)).rejects.toThrow(/Tally/);
  });

  it('serves one tool, an instance, or a @Tool class alone', async () => {
    for (const target of [toolFromInstance(new Hello()), new Hello(), Hello]) {
      const client = await testClient(target);
      try {
        expect((await client.call('hello', { name: 'Ada' })).text).toBe('hello Ada');
      } finally {
        await client.close();
      }
    }
  });

  it('refuses what it cannot serve, saying what it takes', async () => {
    class Plain {}
    const takes =
      'give a ToolApp, a @Module class, a @Tool class, a tool, or an array of tools and @Tool classes';
    await expect(testClient(Plain)).rejects.toThrow(
      `agenttool/testing: testClient: Plain is neither a @Module nor a @Tool class; ${takes}`,
    );
    await expect(testClient(42 as never)).rejects.toThrow(`got number; ${takes}`);
    await expect(testClient({ name: 'x' })).rejects.toThrow(
      `got an object that is not a tool; ${takes}`,
    );
    await expect(testClient([new Hello(), 'hello'] as never)).rejects.toThrow(
      `item 1 is not a tool, a @Tool class or an instance of one; ${takes}`,
    );
    await expect(testClient(Hello, { protocol: 'http' as never })).rejects.toThrow(
      'agenttool/testing: testClient: protocol must be "modern" (2026-07-28) or "legacy" (2025), got "http"',
    );
  });
});

describe('the scripted elicitor alone', () => {
  @Tool({ name: 'confirm', description: 'Ask, and ignore what went wrong' })
  class Confirm {
    async execute(_args: unknown, ctx: ToolContext): Promise<string> {
      try {
        return (await ctx.ask({ message: 'Sure?' })).action;
      } catch {
        return 'asked nobody';
      }
    }
  }
  const tool = toolFromInstance(new Confirm());
  const run = (elicitor: ReturnType<typeof scriptedElicitor>) => {
    const call = { id: 'call_1', args: '{}' };
    return tool.execute(call, createContext({ call, elicitor: elicitor.elicitor }));
  };

  it('answers in order and keeps the questions', async () => {
    const script = scriptedElicitor([{ action: 'accept' }, { action: 'decline' }]);
    expect((await run(script)).output).toBe('accept');
    expect((await run(script)).output).toBe('decline');
    expect(script.questions.map((q) => q.message)).toEqual(['Sure?', 'Sure?']);
    expect(() => script.check()).not.toThrow();
  });

  it('fails a question past the script even when the tool swallows it', async () => {
    const script = scriptedElicitor([], 'tool "confirm"');
    expect((await run(script)).output).toBe('asked nobody');
    expect(script.failure).toBeInstanceOf(ScriptError);
    expect(() => script.check()).toThrow(
      'tool "confirm" asked a question the test gave no answer for: "Sure?" (question 1; 0 answers scripted)',
    );
  });

  it('refuses a malformed script where it is written', () => {
    expect(() => scriptedElicitor([{ action: 'yes' } as never])).toThrow(
      'agenttool/testing: answer 1: action must be "accept", "decline" or "cancel", got "yes"',
    );
    expect(() => scriptedElicitor([{ action: 'decline', content: { a: 1 } }])).toThrow(
      'agenttool/testing: answer 1: only an accept carries content; decline has none',
    );
    expect(() => scriptedElicitor([null as never])).toThrow(
      "agenttool/testing: answer 1: give an answer object, e.g. { action: 'accept', content: {...} }",
    );
  });
});
