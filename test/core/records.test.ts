import {
  type Answer,
  createContext,
  currentContext,
  type Elicitation,
  ProgressInfo,
  recordable,
  recordOf,
  runWithContext,
  type Result,
  type ToolRecord,
} from 'agenttool';

class ProcessGroup {
  constructor(readonly pgid: number) {}
  recordNS(): string {
    return 'shell:process-group';
  }
}

class EmptyNamespace {
  recordNS(): string {
    return '';
  }
}

class Shaped {
  recordNS(): string {
    return 'custom:shape';
  }
  toJSON(): unknown {
    return { shaped: true };
  }
}

describe('recordOf', () => {
  it('is undefined for values that are not recordable', () => {
    expect(recordOf(undefined)).toBeUndefined();
    expect(recordOf(null)).toBeUndefined();
    expect(recordOf(new ProgressInfo(1, 2, 'x'))).toBeUndefined();
    expect(recordOf({ pgid: 1 })).toBeUndefined();
  });

  it('records a recordable value as its namespace and JSON', () => {
    expect(recordOf(new ProcessGroup(4242))).toEqual({
      ns: 'shell:process-group',
      data: '{"pgid":4242}',
    });
    expect(recordOf(new Shaped())).toEqual({ ns: 'custom:shape', data: '{"shaped":true}' });
    expect(recordOf(recordable('a:b', [1, 2]))).toEqual({ ns: 'a:b', data: '[1,2]' });
  });

  it('keeps raw JSON text byte for byte when the value offers it', () => {
    const raw = '{"z":1,"a":9007199254740993}';
    const remote = {
      recordNS: () => 'remote:thing',
      rawJson: () => raw,
      toJSON: () => JSON.parse(raw) as unknown,
    };
    expect(recordOf(remote)).toEqual({ ns: 'remote:thing', data: raw });
  });

  it('rejects an empty namespace, naming the type', () => {
    expect(() => recordOf(new EmptyNamespace())).toThrow(
      'agenttool: record EmptyNamespace: empty namespace',
    );
  });

  it('rejects data JSON cannot write, naming the namespace', () => {
    expect(() => recordOf(recordable('bad', { n: 10n }))).toThrow(/^agenttool: record bad: /);
  });

  it.each([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, '+Inf'],
    [Number.NEGATIVE_INFINITY, '-Inf'],
  ])('rejects %p as Go’s json.Marshal does, instead of writing it as null', (value, shown) => {
    expect(() => recordOf(recordable('ns:x', { kept: null, deep: [1, { x: value }] }))).toThrow(
      expect.objectContaining({
        code: 'INVALID_RECORD',
        message: `agenttool: record ns:x: json: unsupported value: ${shown}`,
      }) as Error,
    );
  });

  it('keeps a real null as null', () => {
    expect(recordOf(recordable('ns:x', { x: null }))).toEqual({ ns: 'ns:x', data: '{"x":null}' });
  });
});

describe('writing a record from a call', () => {
  it('is a no-op without a recorder', async () => {
    await expect(createContext().record(new ProcessGroup(1))).resolves.toBeUndefined();
  });

  it('reaches the recorder with the call on the context', async () => {
    const seen: [ToolRecord, string][] = [];
    const ctx = createContext({
      call: { id: 'call_1', args: '{}' },
      recorder: (record, c) => {
        seen.push([record, c.call.id]);
      },
    });
    await ctx.record(new ProcessGroup(4242));
    expect(seen).toEqual([[{ ns: 'shell:process-group', data: '{"pgid":4242}' }, 'call_1']]);
  });

  it('never calls the recorder with a bad record', async () => {
    const recorder = jest.fn();
    const ctx = createContext({ recorder });
    await expect(ctx.record(recordable('bad', { n: 10n }))).rejects.toThrow(
      /agenttool: record bad/,
    );
    await expect(ctx.record(new EmptyNamespace())).rejects.toThrow(/empty namespace/);
    // The type refuses a value that is not recordable; a caller without types gets an error.
    await expect(ctx.record({ plain: true } as never)).rejects.toThrow(/not recordable/);
    expect(recorder).not.toHaveBeenCalled();
  });

  it("hands the recorder's failure to the tool", async () => {
    const ctx = createContext({
      recorder: () => Promise.reject(new Error('disk full')),
    });
    await expect(ctx.record(new ProcessGroup(1))).rejects.toThrow('disk full');
  });

  it('a removed recorder is no recorder', async () => {
    const recorder = jest.fn();
    const ctx = createContext({ recorder }).with({ recorder: undefined });
    await ctx.record(new ProcessGroup(1));
    expect(recorder).not.toHaveBeenCalled();
  });
});

describe('asking the user', () => {
  const question: Elicitation = { message: 'Proceed?', schema: { type: 'object', properties: {} } };

  it('no elicitor means cancel', async () => {
    await expect(createContext().ask(question)).resolves.toEqual({ action: 'cancel' });
  });

  it('the elicitor answers, and a failure to ask is an error', async () => {
    const answer: Answer = { action: 'accept', content: { confirm: true } };
    await expect(createContext({ elicitor: () => answer }).ask(question)).resolves.toBe(answer);
    const failing = createContext({
      elicitor: () => {
        throw new Error('no terminal');
      },
    });
    await expect(failing.ask(question)).rejects.toThrow('no terminal');
  });
});

describe('progress', () => {
  it("reaches the call's onUpdate as results", () => {
    const updates: Result[] = [];
    const ctx = createContext({ call: { id: 'c', args: '', onUpdate: (u) => updates.push(u) } });
    ctx.progress('step');
    ctx.progress(new ProgressInfo(1, 2, 'half way'));
    ctx.progress({ output: 'raw' });
    expect(updates).toEqual([
      { output: 'step' },
      { output: 'half way', details: new ProgressInfo(1, 2, 'half way') },
      { output: 'raw' },
    ]);
  });

  it('is a no-op without a listener', () => {
    expect(() => createContext().progress('x')).not.toThrow();
  });
});

describe('the context deep inside a call', () => {
  it('is reachable through AsyncLocalStorage across awaits', async () => {
    const ctx = createContext({ call: { id: 'deep', args: '{}' } });
    expect(currentContext()).toBeUndefined();
    const seen = await runWithContext(ctx, async () => {
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      return currentContext()?.call.id;
    });
    expect(seen).toBe('deep');
    expect(currentContext()).toBeUndefined();
  });
});
