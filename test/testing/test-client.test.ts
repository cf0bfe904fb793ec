/**
 * agenttool/testing's client, through its public entry, in both protocol eras: what a
 * call returns (text, parts, structured, errors as the model reads them), the records
 * of each call with calls in parallel, scripted answers and the failures of a broken
 * script, cancellation seen by the tool, and no socket opened.
 */
import * as net from 'node:net';
import {
  annotationsOf,
  Annotations,
  definitionHash,
  imagePart,
  Param,
  parts,
  recordable,
  type Result,
  structuredResult,
  textPart,
  Tool,
  type ToolContext,
  toolFromInstance,
} from 'agenttool';
import { PROTOCOL_ERAS, ScriptError, type TestClient, testClient } from 'agenttool/testing';

class EchoArgs {
  @Param('What to say back') words!: string;
}

/** Writes a record while it runs, and returns one in its details. */
@Tool({ name: 'echo', description: 'Say the words back', args: EchoArgs })
@Annotations({ readOnly: true, title: 'Echo' })
class Echo {
  async execute(args: EchoArgs, ctx: ToolContext): Promise<Result> {
    ctx.progress(`echoing ${args.words}`);
    await ctx.record(recordable('echo:heard', { words: args.words }));
    // Calls in parallel interleave here: each record must still be its own call's.
    await new Promise((resolve) => setImmediate(resolve));
    return { output: args.words, details: recordable('echo:said', { words: args.words }) };
  }
}

@Tool({ name: 'picture', description: 'Draw a picture' })
class Picture {
  execute(): Result {
    return parts(textPart('a dot'), imagePart(Buffer.from('png'), 'image/png'));
  }
}

@Tool({ name: 'weather', description: 'Read the weather' })
class Weather {
  execute(): Result {
    return structuredResult({ celsius: 21 });
  }
}

@Tool({ name: 'fail', description: 'Always fails' })
class Fail {
  execute(): string {
    throw new Error('the disk is full');
  }
}

class ImportArgs {
  @Param('Rows to import', { type: 'integer' }) rows!: number;
}

/** Asks twice: whether to import, then which table. */
@Tool({ name: 'import_rows', description: 'Import rows', args: ImportArgs })
class ImportRows {
  async execute(args: ImportArgs, ctx: ToolContext): Promise<string> {
    const confirm = await ctx.ask({
      message: `Import ${args.rows} rows?`,
      schema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
    });
    if (confirm.action !== 'accept' || confirm.content?.['confirm'] !== true) return 'not imported';
    const table = await ctx.ask({
      message: 'Into which table?',
      schema: { type: 'object', properties: { table: { type: 'string' } } },
    });
    if (table.action !== 'accept') return 'not imported: no table';
    return `imported ${args.rows} rows into ${JSON.stringify(table.content?.['table'])}`;
  }
}

/** Runs until its call is interrupted, then says so. */
@Tool({ name: 'wait', description: 'Wait until interrupted' })
class Wait {
  async execute(_args: unknown, ctx: ToolContext): Promise<string> {
    ctx.progress('waiting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw new Error('stopped: interrupted');
  }
}

const TOOLS = () => [
  new Echo(),
  new Picture(),
  new Weather(),
  new Fail(),
  new ImportRows(),
  new Wait(),
];

describe.each(PROTOCOL_ERAS)('a test client, %s era', (protocol) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await testClient(TOOLS(), { protocol });
  });
  afterAll(() => client.close());

  it('speaks the era asked', () => {
    expect(client.protocol).toBe(protocol);
    expect(client.remote.era).toBe(protocol);
  });

  it('lists each tool as a host reads it: definition, hash and hints', async () => {
    const listed = await client.list();
    expect(listed.map((tool) => tool.name)).toEqual([
      'echo',
      'picture',
      'weather',
      'fail',
      'import_rows',
      'wait',
    ]);
    const echo = listed[0]!;
    const local = toolFromInstance(new Echo());
    expect(echo.hash).toBe(definitionHash(local));
    expect(echo.parameters).toEqual(local.parameters);
    expect(echo.annotations).toEqual(annotationsOf(local));
  });

  it('returns the text, the parts and the structured result the model reads', async () => {
    const echo = await client.call('echo', { words: 'hello' });
    expect(echo).toMatchObject({ tool: 'echo', text: 'hello', output: 'hello', parts: [] });
    expect(echo.error).toBeUndefined();
    expect(echo.progress).toEqual(['echoing hello']);
    const picture = await client.call('picture');
    expect(picture.parts).toEqual([
      { type: 'text', text: 'a dot' },
      {
        type: 'input_image',
        image_url: `data:image/png;base64,${Buffer.from('png').toString('base64')}`,
      },
    ]);
    expect(picture.text).toBe('a dot');
    const weather = await client.call('weather');
    expect(weather.structured).toEqual({ celsius: 21 });
  });

  it('returns errors as the model reads them, the prefix once', async () => {
    const failed = await client.call('fail');
    expect(failed).toMatchObject({
      text: 'Error: the disk is full',
      error: 'the disk is full',
      cancelled: false,
    });
    expect(failed.cause).toBeInstanceOf(Error);
    const refused = await client.call('echo', { words: 7 });
    // The server checks arguments as the Go binding's server does, in its words.
    expect(refused.text).toBe(
      'Error: invalid arguments: validating root: validating /properties/words: type: 7 has type "integer", want "string"',
    );
    const malformed = await client.call('echo', '{"words": ');
    expect(malformed.error).toMatch(/^invalid arguments: /);
  });

  it("keeps each call's records apart, with calls in parallel", async () => {
    const words = ['one', 'two', 'three', 'four'];
    const outcomes = await Promise.all(words.map((w) => client.call('echo', { words: w })));
    outcomes.forEach((outcome, i) => {
      expect(outcome.records).toEqual([
        { ns: 'echo:heard', data: JSON.stringify({ words: words[i] }) },
        { ns: 'echo:said', data: JSON.stringify({ words: words[i] }) },
      ]);
      expect(outcome.record).toEqual({
        ns: 'echo:said',
        data: JSON.stringify({ words: words[i] }),
      });
    });
    // The client keeps what the server's recorder got: the records written, not the results'.
    expect(client.records.filter((r) => r.ns === 'echo:heard').length).toBeGreaterThanOrEqual(4);
  });

  it('answers questions from the script, in order, and reports them', async () => {
    const done = await client.ask('import_rows', { rows: 3 }, [
      { action: 'accept', content: { confirm: true } },
      { question: 'Into which table?', answer: { action: 'accept', content: { table: 'orders' } } },
    ]);
    expect(done.text).toBe('imported 3 rows into "orders"');
    expect(done.questions.map((q) => q.message)).toEqual(['Import 3 rows?', 'Into which table?']);
    const declined = await client.ask('import_rows', { rows: 3 }, [{ action: 'decline' }]);
    expect(declined.text).toBe('not imported');
  });

  it('fails the test on a question with no answer, naming it', async () => {
    const unscripted = client.call('import_rows', { rows: 9 });
    await expect(unscripted).rejects.toThrow(ScriptError);
    await expect(unscripted).rejects.toThrow(
      'tool "import_rows" asked a question the test gave no answer for: "Import 9 rows?" (question 1; 0 answers scripted)',
    );
    const short = client.ask('import_rows', { rows: 9 }, [
      { action: 'accept', content: { confirm: true } },
    ]);
    await expect(short).rejects.toThrow('"Into which table?" (question 2; 1 answer scripted)');
  });

  it('fails the test on a question other than expected, and on answers left unused', async () => {
    await expect(
      client.ask('import_rows', { rows: 2 }, [
        { question: /^Delete/, answer: { action: 'accept' } },
      ]),
    ).rejects.toThrow(
      'tool "import_rows" asked "Import 2 rows?" as question 1, where the test expected a question matching /^Delete/',
    );
    await expect(
      client.ask('import_rows', { rows: 2 }, [{ action: 'decline' }, { action: 'cancel' }]),
    ).rejects.toThrow(
      'tool "import_rows" asked 1 question ("Import 2 rows?") and the test scripted 2 answers: 1 answer left unused',
    );
  });

  it('answers the questions of calls in parallel, each from its own script, where the era can', async () => {
    const asks = ['2', '3'].map((rows) =>
      client.ask('import_rows', { rows: Number(rows) }, [
        {
          question: `Import ${rows} rows?`,
          answer: { action: 'accept', content: { confirm: true } },
        },
        { action: 'accept', content: { table: `t${rows}` } },
      ]),
    );
    if (protocol === 'modern') {
      // 2026-07-28: each question comes back with the call it belongs to.
      const done = await Promise.all(asks);
      expect(done.map((o) => o.text)).toEqual([
        'imported 2 rows into "t2"',
        'imported 3 rows into "t3"',
      ]);
    } else {
      // The 2025 era ties no question to a call: with two in flight, the client answers
      // cancel, and the test says why its answers went unused.
      for (const outcome of await Promise.allSettled(asks)) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toContain(
          'the tool asked never reached this call: in the 2025 era the protocol ties no question to a call',
        );
      }
    }
  });

  it('cancels a call mid-flight, and the tool sees the abort', async () => {
    const running = client.start('wait');
    await running.started;
    running.cancel();
    const outcome = await running.outcome;
    expect(outcome.cancelled).toBe(true);
    expect(outcome.text).toMatch(/^Error: /);
    expect(await running.settled).toEqual({
      sawAbort: true,
      output: undefined,
      error: 'stopped: interrupted',
    });
  });

  it("cancels through the test's own signal", async () => {
    const interrupt = new AbortController();
    const running = client.start('wait', {}, { signal: interrupt.signal });
    await running.started;
    interrupt.abort();
    expect((await running.outcome).cancelled).toBe(true);
    expect((await running.settled).sawAbort).toBe(true);
  });

  it('says when a tool never started, and refuses an unknown tool', async () => {
    // Arguments that are not JSON never leave the client.
    const refused = client.start('echo', '{"words": ');
    await expect(refused.started).rejects.toThrow('agenttool/testing: the tool never started');
    await expect(refused.settled).rejects.toThrow('agenttool/testing: the tool never started');
    expect((await refused.outcome).error).toMatch(/^invalid arguments/);
    await expect(client.call('nothing')).rejects.toThrow(
      'agenttool/testing: no tool "nothing" is served; the client lists echo, picture, weather, fail, import_rows, wait',
    );
  });
});

/** Waits a minute of the clock before it answers. */
@Tool({ name: 'slow', description: 'Answer after a minute' })
class Slow {
  async execute(_args: unknown, ctx: ToolContext): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    return ctx.signal.aborted ? 'late' : 'a minute later';
  }
}

describe.each(PROTOCOL_ERAS)('a test client under a fake clock, %s era', (protocol) => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("answers once the test's clock has moved, and not before", async () => {
    const client = await testClient(new Slow(), { protocol });
    try {
      const running = client.start('slow');
      await running.started;
      let answered = false;
      void running.outcome.then(() => (answered = true));
      await jest.advanceTimersByTimeAsync(59_000);
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1_000);
      expect((await running.outcome).text).toBe('a minute later');
    } finally {
      await client.close();
    }
  });
});

describe('a test client opens no socket', () => {
  it.each(PROTOCOL_ERAS)('%s era: lists and calls with the network refused', async (protocol) => {
    const connect = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('no network in a test client');
    });
    const fetched = jest.spyOn(globalThis, 'fetch').mockImplementation(() => {
      throw new Error('no network in a test client');
    });
    try {
      const client = await testClient(new Echo(), { protocol });
      try {
        expect((await client.call('echo', { words: 'offline' })).text).toBe('offline');
      } finally {
        await client.close();
      }
      expect(connect).not.toHaveBeenCalled();
      expect(fetched).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
      fetched.mockRestore();
    }
  });
});

describe('a closed test client', () => {
  it('refuses calls, and closes once, at the end of an `await using` block too', async () => {
    let kept: TestClient | undefined;
    {
      await using client = await testClient(new Echo());
      kept = client;
      expect((await client.call('echo', { words: 'x' })).text).toBe('x');
    }
    await kept.close();
    await expect(kept.call('echo', { words: 'x' })).rejects.toThrow(
      'agenttool/testing: the test client is closed',
    );
  });
});
