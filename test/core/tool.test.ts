import {
  accessOf,
  handleArgumentOf,
  annotationsOf,
  confinedBy,
  createContext,
  definitionHash,
  definitionOf,
  isCloser,
  isSequential,
  isStrict,
  newTool,
  noArgsSchema,
  OPTIONAL_TOOL_PROPERTIES,
  outputSchemaOf,
  replayOf,
  resourceOf,
  tagsOf,
  text,
  type Tool,
  ToolSet,
  unwrap,
  validatesOwnArguments,
  wrap,
} from 'agenttool';

const ctx = createContext();
const noop = () => text('');

// Fails to compile when Tool gains an optional member that OPTIONAL_TOOL_PROPERTIES
// (and so wrap) does not know about.
type Required4 = 'name' | 'description' | 'parameters' | 'execute';
type Unlisted = Exclude<keyof Tool, Required4 | (typeof OPTIONAL_TOOL_PROPERTIES)[number]>;
const everyOptionalPropertyIsListed: [Unlisted] extends [never] ? true : false = true;

function everythingTool(closed: string[]): Tool {
  return newTool({
    name: 'everything',
    description: 'has every property',
    parameters: { type: 'object', properties: { x: { type: 'string' } }, required: [] },
    strict: true,
    sequential: true,
    resource: 'shell:session',
    annotations: { title: 'Everything', readOnly: false, destructive: true, openWorld: true },
    confined: (args) => ({ confined: args.includes('box'), by: 'bubblewrap' }),
    replay: (args) => (args.includes('key') ? 'keyed' : 'safe'),
    close: () => {
      closed.push('everything');
    },
    validatesArguments: true,
    outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    access: { scopes: ['files:write'], guards: [(request) => request.auth?.subject === 'ada'] },
    handleArgument: 'shell_id',
    tags: ['files'],
    execute: () => text('inner'),
  });
}

describe('readers apply the defaults', () => {
  const plain: Tool = { name: 'plain', description: '', parameters: undefined, execute: noop };

  it('for a tool that declares nothing', () => {
    expect(validatesOwnArguments(plain)).toBe(false);
    expect(isStrict(plain)).toBe(false);
    expect(isSequential(plain)).toBe(false);
    expect(resourceOf(plain)).toBe('');
    expect(annotationsOf(plain)).toBeUndefined();
    expect(confinedBy(plain, '{}', ctx)).toEqual({ confined: false, by: '' });
    expect(replayOf(plain, '{}', ctx)).toBe('unknown');
    expect(isCloser(plain)).toBe(false);
    expect(outputSchemaOf(plain)).toBeUndefined();
    expect(accessOf(plain)).toBeUndefined();
  });

  it('unstated annotations differ from all false', () => {
    const allFalse = newTool({ name: 'f', execute: noop, annotations: {} });
    expect(annotationsOf(allFalse)).toEqual({
      title: '',
      readOnly: false,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
    expect(annotationsOf(newTool({ name: 'u', execute: noop }))).toBeUndefined();
  });

  it('a sequential tool reports no resource through the reader', () => {
    const closed: string[] = [];
    const tool = everythingTool(closed);
    expect(resourceOf(tool)).toBe('');
    expect(tool.resource).toBe('shell:session');
    expect(resourceOf(newTool({ name: 'r', resource: 'shell:session', execute: noop }))).toBe(
      'shell:session',
    );
  });

  it('an unknown replay value reads unknown; confined false has no "by"', () => {
    const odd = {
      name: 'odd',
      description: '',
      parameters: undefined,
      execute: noop,
      replay: () => 'sometimes' as never,
      confined: () => ({ confined: false, by: 'ignored' }),
    } satisfies Tool;
    expect(replayOf(odd, '{}', ctx)).toBe('unknown');
    expect(confinedBy(odd, '{}', ctx)).toEqual({ confined: false, by: '' });
  });
});

describe('newTool', () => {
  it('serves parameters verbatim and answers confined and replay', () => {
    const schema = { type: 'object', properties: { weird: { type: 'whatever' } } };
    const tool = newTool({ name: 'raw', parameters: schema, execute: noop });
    expect(tool.parameters).toBe(schema);
    expect(typeof tool.confined).toBe('function');
    expect(typeof tool.replay).toBe('function');
    expect(isCloser(tool)).toBe(false);
  });

  it('refuses a missing function, naming the tool', () => {
    expect(() => newTool({ name: 'broken', execute: undefined as never })).toThrow(
      'agenttool.newTool("broken"): execute must be a function',
    );
  });

  it('keeps an output schema, which leaves the definition and its hash as they were', () => {
    const outputSchema = { type: 'object', properties: { n: { type: 'integer' } } };
    const plain = newTool({ name: 'count', description: 'Counts', execute: noop });
    const typed = newTool({ name: 'count', description: 'Counts', execute: noop, outputSchema });
    expect(outputSchemaOf(typed)).toBe(outputSchema);
    expect(definitionOf(typed)).toEqual(definitionOf(plain));
    expect(definitionHash(typed)).toBe(definitionHash(plain));
  });

  it('refuses an output schema that is not an object schema, naming the tool', () => {
    for (const outputSchema of [{ type: 'array' }, { properties: {} }, 'object' as never]) {
      expect(() => newTool({ name: 'odd', execute: noop, outputSchema })).toThrow(
        'agenttool.newTool("odd"): outputSchema must be a JSON Schema object with "type": "object"',
      );
    }
  });
});

describe('wrap and unwrap', () => {
  it(`forwards every optional property (${OPTIONAL_TOOL_PROPERTIES.join(', ')})`, async () => {
    expect(everyOptionalPropertyIsListed).toBe(true);
    const closed: string[] = [];
    const inner = everythingTool(closed);
    const wrapper = wrap(inner, () => text('outer'));
    for (const property of OPTIONAL_TOOL_PROPERTIES) {
      expect(property in wrapper).toBe(true);
    }
    expect(wrapper.name).toBe(inner.name);
    expect(wrapper.description).toBe(inner.description);
    expect(wrapper.parameters).toBe(inner.parameters);
    expect(isStrict(wrapper)).toBe(true);
    expect(isSequential(wrapper)).toBe(true);
    expect(resourceOf(wrapper)).toBe('');
    expect(wrapper.resource).toBe('shell:session');
    expect(annotationsOf(wrapper)).toEqual(annotationsOf(inner));
    for (const args of ['{"x":"box key"}', '{}']) {
      expect(confinedBy(wrapper, args, ctx)).toEqual(confinedBy(inner, args, ctx));
      expect(replayOf(wrapper, args, ctx)).toEqual(replayOf(inner, args, ctx));
    }
    expect(validatesOwnArguments(wrapper)).toBe(true);
    expect(outputSchemaOf(wrapper)).toEqual(outputSchemaOf(inner));
    expect(outputSchemaOf(wrapper)).toBeDefined();
    expect(accessOf(wrapper)).toEqual(accessOf(inner));
    expect(accessOf(wrapper)?.guards).toEqual(inner.access?.guards);
    expect(handleArgumentOf(wrapper)).toBe('shell_id');
    expect(tagsOf(wrapper)).toEqual(['files']);
    expect(definitionOf(wrapper)).toEqual(definitionOf(inner));
    expect(await wrapper.execute({ id: '1', args: '' }, ctx)).toEqual(text('outer'));
    await wrapper.close?.();
    expect(closed).toEqual(['everything']);
  });

  it('is a closer exactly when the inner tool is', () => {
    const plain = newTool({ name: 'p', execute: noop });
    expect(isCloser(wrap(plain, noop))).toBe(false);
    expect('close' in wrap(plain, noop)).toBe(false);
  });

  it('forwards a close error', async () => {
    const failing = newTool({
      name: 'f',
      execute: noop,
      close: () => {
        throw new Error('stuck');
      },
    });
    await expect(async () => wrap(failing, noop).close?.()).rejects.toThrow('stuck');
  });

  it('chains, and unwrap walks back one layer at a time', () => {
    const inner = newTool({ name: 'i', execute: noop });
    const once = wrap(inner, noop);
    const twice = wrap(once, noop);
    expect(unwrap(twice)).toBe(once);
    expect(unwrap(once)).toBe(inner);
    expect(unwrap(inner)).toBeUndefined();
  });

  it('refuses a missing tool or function', () => {
    expect(() => wrap(undefined as never, noop)).toThrow('agenttool.wrap: no tool');
    expect(() => wrap(newTool({ name: 'n', execute: noop }), undefined as never)).toThrow(
      'agenttool.wrap("n"): execute must be a function',
    );
  });
});

describe('ToolSet', () => {
  it('looks tools up by name, first match', () => {
    const a = newTool({ name: 'a', execute: noop });
    const b = newTool({ name: 'b', execute: noop });
    const set = new ToolSet([a, b]);
    expect(set.lookup('b')).toBe(b);
    expect(set.lookup('c')).toBeUndefined();
    expect(set.size).toBe(2);
    expect([...set]).toEqual([a, b]);
  });

  it('validates empty and duplicate names', () => {
    expect(() => new ToolSet([newTool({ name: '', execute: noop })]).validate()).toThrow(
      'tool[0]: empty name',
    );
    expect(() =>
      new ToolSet([
        newTool({ name: 'x', execute: noop }),
        newTool({ name: 'x', execute: noop }),
      ]).validate(),
    ).toThrow('tool "x": duplicate name');
    expect(() => new ToolSet([]).validate()).not.toThrow();
  });

  it('lists definitions in order', () => {
    const set = new ToolSet([
      newTool({ name: 'a', description: 'A', execute: noop }),
      newTool({ name: 'b', execute: noop, strict: true, parameters: noArgsSchema() }),
    ]);
    expect(set.definitions()).toEqual([
      { type: 'function', name: 'a', description: 'A', parameters: noArgsSchema() },
      { type: 'function', name: 'b', description: '', parameters: noArgsSchema(), strict: true },
    ]);
    expect(new ToolSet().definitions()).toEqual([]);
  });

  it('closes each closer once, in order, joining errors', async () => {
    const order: string[] = [];
    const closer = (name: string, fail = false) =>
      newTool({
        name,
        execute: noop,
        close: () => {
          order.push(name);
          if (fail) throw new Error(`${name} failed`);
        },
      });
    const set = new ToolSet([
      closer('one'),
      newTool({ name: 'plain', execute: noop }),
      closer('two', true),
      closer('three', true),
    ]);
    const error = await set.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(order).toEqual(['one', 'two', 'three']);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual([
      'two failed',
      'three failed',
    ]);
  });
});

describe('definitions', () => {
  it('serve the no-arguments schema exactly, and strict only when true', () => {
    const def = definitionOf(newTool({ name: 'ping', execute: noop, strict: false }));
    expect(JSON.stringify(def)).toBe(
      '{"type":"function","name":"ping","description":"","parameters":{"type":"object","properties":{},"required":[]}}',
    );
    expect(definitionOf(newTool({ name: 's', execute: noop, strict: true })).strict).toBe(true);
  });

  it('do not change with the ownership properties', () => {
    const bare = newTool({ name: 't', description: 'd', execute: noop });
    const owning = newTool({
      name: 't',
      description: 'd',
      execute: noop,
      confined: () => ({ confined: true, by: 'x' }),
      replay: () => 'safe',
      close: () => undefined,
      sequential: true,
      resource: 'r',
      annotations: { readOnly: true },
    });
    expect(definitionOf(owning)).toEqual(definitionOf(bare));
  });
});
