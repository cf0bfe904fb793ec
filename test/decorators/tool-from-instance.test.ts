import {
  Annotations,
  annotationsOf,
  type Call,
  Confined,
  confinedBy,
  createContext,
  currentContext,
  definitionOf,
  isCloser,
  isSequential,
  isStrict,
  isToolClass,
  PanicError,
  Param,
  parts,
  Replay,
  replayOf,
  Resource,
  resourceOf,
  Sequential,
  Strict,
  text,
  textPart,
  Tool,
  type ToolContext,
  toolFromInstance,
  toolDescriptorOf,
  ValidationError,
} from 'agenttool';

const call = (args: string, id = 'call_1'): Call => ({ id, args });

class EchoArgs {
  @Param('What to say') message!: string;
  @Param('Times to repeat', { type: 'integer', optional: true }) times?: number;
}

describe('each decorator read through the core readers', () => {
  @Tool({ name: 'everything', description: 'All properties', args: EchoArgs })
  @Strict()
  @Resource('shell:session')
  @Annotations({ title: 'Everything', readOnly: true })
  @Confined((args: EchoArgs) => ({ confined: args.message === 'boxed', by: 'docker' }))
  @Replay((args: EchoArgs) => (args.times === 1 ? 'safe' : 'keyed'))
  class Everything {
    execute(): string {
      return '';
    }
    close(): void {}
  }

  @Tool({ name: 'bare', description: 'Nothing stated' })
  class Bare {
    execute(): string {
      return '';
    }
  }

  const ctx = createContext();
  const everything = toolFromInstance(new Everything());
  const bare = toolFromInstance(new Bare());

  it('reads strict, resource, annotations and closer', () => {
    expect(isStrict(everything)).toBe(true);
    expect(resourceOf(everything)).toBe('shell:session');
    expect(annotationsOf(everything)).toEqual({
      title: 'Everything',
      readOnly: true,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
    expect(isCloser(everything)).toBe(true);
    expect(definitionOf(everything).strict).toBe(true);
  });

  it('reads confined and replay per call, from the decoded arguments', () => {
    expect(confinedBy(everything, '{"message":"boxed","times":1}', ctx)).toEqual({
      confined: true,
      by: 'docker',
    });
    expect(confinedBy(everything, '{"message":"open","times":1}', ctx)).toEqual({
      confined: false,
      by: '',
    });
    expect(replayOf(everything, '{"message":"x","times":1}', ctx)).toBe('safe');
    expect(replayOf(everything, '{"message":"x","times":2}', ctx)).toBe('keyed');
  });

  it('answers the defaults for arguments the schema rejects', () => {
    expect(confinedBy(everything, '{"message":"boxed","times":1,"x":1}', ctx)).toEqual({
      confined: false,
      by: '',
    });
    expect(replayOf(everything, 'not json', ctx)).toBe('unknown');
  });

  it('applies the defaults when nothing is stated', () => {
    expect(isStrict(bare)).toBe(false);
    expect(isSequential(bare)).toBe(false);
    expect(resourceOf(bare)).toBe('');
    expect(annotationsOf(bare)).toBeUndefined();
    expect(confinedBy(bare, '{}', ctx)).toEqual({ confined: false, by: '' });
    expect(replayOf(bare, '{}', ctx)).toBe('unknown');
    expect(isCloser(bare)).toBe(false);
  });

  it('reads @Sequential (and a sequential tool reports no resource)', () => {
    @Tool({ name: 'seq', description: '' })
    @Sequential()
    @Resource('ignored')
    @Replay('safe')
    @Confined('sandbox')
    class Seq {
      execute(): void {}
    }
    const tool = toolFromInstance(new Seq());
    expect(isSequential(tool)).toBe(true);
    expect(resourceOf(tool)).toBe('');
    expect(tool.resource).toBe('ignored');
    expect(replayOf(tool, '', ctx)).toBe('safe');
    expect(confinedBy(tool, '', ctx)).toEqual({ confined: true, by: 'sandbox' });
  });

  it('exposes the metadata of a tool class', () => {
    expect(isToolClass(Everything)).toBe(true);
    expect(isToolClass(EchoArgs)).toBe(false);
    const metadata = toolDescriptorOf(Everything);
    expect(metadata.name).toBe('everything');
    expect(metadata.args).toBe(EchoArgs);
    expect(metadata.fields.map((f) => f.name)).toEqual(['message', 'times']);
    expect(metadata.properties.resource).toBe('shell:session');
  });

  it('closes the instance through the tool', async () => {
    let closed = 0;
    @Tool({ name: 'owner', description: '' })
    class Owner {
      execute(): void {}
      async close(): Promise<void> {
        closed++;
      }
    }
    const tool = toolFromInstance(new Owner());
    await tool.close!();
    expect(closed).toBe(1);
  });
});

describe('execute', () => {
  it('passes the validated arguments instance and the context, and converts the output', async () => {
    let seen: { args: unknown; ctx: ToolContext | undefined; current: unknown } | undefined;
    @Tool({ name: 'echo', description: 'Echo', args: EchoArgs })
    class Echo {
      constructor(private readonly prefix: string) {}
      async execute(args: EchoArgs, ctx: ToolContext): Promise<{ said: string }> {
        seen = { args, ctx, current: currentContext() };
        return { said: `${this.prefix}${args.message.repeat(args.times ?? 1)}` };
      }
    }
    const tool = toolFromInstance(new Echo('> '));
    const ctx = createContext({ call: call('{"message":"hi","times":2}') });
    const result = await tool.execute(call('{"message":"hi","times":2}'), ctx);
    // Go: typed.go Output marshals the returned value with json.Marshal (`>` as \u003e).
    expect(result).toEqual(text('{"said":"\\u003e hihi"}'));
    expect(seen!.args).toBeInstanceOf(EchoArgs);
    expect(seen!.args).toEqual(Object.assign(new EchoArgs(), { message: 'hi', times: 2 }));
    expect(seen!.ctx).toBe(ctx);
    expect(seen!.current).toBe(ctx);
  });

  it('passes results and content parts through toResult', async () => {
    @Tool({ name: 'picture', description: '' })
    class Picture {
      execute(): unknown {
        return [textPart('caption')];
      }
    }
    const result = await toolFromInstance(new Picture()).execute(call(''), createContext());
    expect(result).toEqual(parts(textPart('caption')));
  });

  it('gives a tool without an arguments class {} and serves the no-arguments schema', async () => {
    let received: unknown;
    @Tool({ name: 'ping', description: '' })
    class Ping {
      execute(args: object): string {
        received = args;
        return 'pong';
      }
    }
    const tool = toolFromInstance(new Ping());
    expect(tool.parameters).toEqual({ type: 'object', properties: {}, required: [] });
    expect(await tool.execute(call('{"ignored":1}'), createContext())).toEqual(text('pong'));
    expect(received).toEqual({});
  });

  it('rejects unknown properties for a strict tool without arguments', async () => {
    @Tool({ name: 'ping', description: '', strict: true })
    class StrictPing {
      execute(): string {
        return 'pong';
      }
    }
    const tool = toolFromInstance(new StrictPing());
    await expect(tool.execute(call('{"x":1}'), createContext())).rejects.toThrow(
      'invalid arguments: unexpected property "x"',
    );
  });

  it('throws the contract ValidationError for invalid arguments, without running the tool', async () => {
    let ran = false;
    @Tool({ name: 'echo', description: '', args: EchoArgs })
    class Echo {
      execute(): void {
        ran = true;
      }
    }
    const tool = toolFromInstance(new Echo());
    const failure = tool.execute(call('{"message":1}'), createContext());
    await expect(failure).rejects.toBeInstanceOf(ValidationError);
    await expect(failure).rejects.toThrow('invalid arguments: message: expected string, got 1');
    expect(ran).toBe(false);
  });

  it("propagates the tool's own error and turns a programming fault into a PanicError", async () => {
    @Tool({ name: 'fails', description: '' })
    class Fails {
      execute(): never {
        throw new Error('disk on fire');
      }
    }
    @Tool({ name: 'panics', description: '' })
    class Panics {
      execute(): unknown {
        return (undefined as unknown as { x: { y: number } }).x.y;
      }
    }
    const own = toolFromInstance(new Fails()).execute(call(''), createContext());
    await expect(own).rejects.toThrow('disk on fire');
    await expect(own).rejects.not.toBeInstanceOf(PanicError);
    const fault = toolFromInstance(new Panics()).execute(call(''), createContext());
    await expect(fault).rejects.toBeInstanceOf(PanicError);
    await expect(fault).rejects.toThrow(/^tool "panics" panicked: TypeError: /);
  });

  it('gives each tool its own copy of the parameters, equal between instances', () => {
    @Tool({ name: 'echo', description: '', args: EchoArgs })
    class Echo {
      execute(): void {}
    }
    const a = toolFromInstance(new Echo());
    const b = toolFromInstance(new Echo());
    expect(a.parameters).toEqual(b.parameters);
    expect(a.parameters).not.toBe(b.parameters);
  });
});
