import {
  annotationsOf,
  Annotations,
  argumentsParser,
  createContext,
  isSequential,
  Param,
  replayOf,
  Replay,
  Resource,
  resourceOf,
  schemaOf,
  Sequential,
  Tool,
  toolFromInstance,
} from 'agenttool';

class Base {
  @Param('base a') a!: string;
  @Param('base b') b!: string;
  @Param('base c') c!: string;
}

class Middle extends Base {
  @Param('middle d') d!: string;
  @Param('middle b', { optional: true }) override b!: string;
}

class Leaf extends Middle {
  @Param('leaf e', { type: 'integer' }) e!: number;
  @Param('leaf a', { enum: ['x', 'y'] }) override a!: string;
}

describe('arguments class inheritance', () => {
  it('puts ancestors first, in declaration order, and replaces a redeclared field in place', () => {
    const schema = schemaOf(Leaf);
    expect(Object.keys(schema.properties as object)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string', description: 'leaf a', enum: ['x', 'y'] },
        b: { type: 'string', description: 'middle b' },
        c: { type: 'string', description: 'base c' },
        d: { type: 'string', description: 'middle d' },
        e: { type: 'integer', description: 'leaf e' },
      },
      required: ['a', 'c', 'd', 'e'],
    });
  });

  it('leaves the parent classes as they were declared', () => {
    expect(Object.keys(schemaOf(Base).properties as object)).toEqual(['a', 'b', 'c']);
    expect(schemaOf(Base).required).toEqual(['a', 'b', 'c']);
    expect(schemaOf(Middle).required).toEqual(['a', 'c', 'd']);
  });

  it('instantiates the subclass with every inherited field', async () => {
    const args = await argumentsParser(Leaf)('{"a":"x","c":"c","d":"d","e":1,"b":"b"}');
    expect(args).toBeInstanceOf(Leaf);
    expect({ ...args }).toEqual({ a: 'x', b: 'b', c: 'c', d: 'd', e: 1 });
  });
});

describe('tool class inheritance', () => {
  @Tool({ name: 'parent', description: 'The parent' })
  @Sequential()
  @Annotations({ readOnly: true })
  @Replay('safe')
  class Parent {
    execute(): string {
      return 'parent';
    }
  }

  class Inherits extends Parent {}

  @Tool({ name: 'child', description: 'The child' })
  @Annotations({ destructive: true })
  @Resource('child:resource')
  class Overrides extends Parent {
    override execute(): string {
      return 'child';
    }
  }

  const ctx = createContext();

  it('inherits every decorator when the subclass declares none', async () => {
    const tool = toolFromInstance(new Inherits());
    expect(tool.name).toBe('parent');
    expect(isSequential(tool)).toBe(true);
    expect(annotationsOf(tool)?.readOnly).toBe(true);
    expect(replayOf(tool, '', ctx)).toBe('safe');
    expect(await tool.execute({ id: 'c', args: '' }, ctx)).toEqual({ output: 'parent' });
  });

  it("replaces a decorator the subclass declares and keeps the parent's others", async () => {
    const tool = toolFromInstance(new Overrides());
    expect(tool.name).toBe('child');
    expect(tool.description).toBe('The child');
    expect(annotationsOf(tool)).toEqual({
      title: '',
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: false,
    });
    expect(isSequential(tool)).toBe(true);
    expect(tool.resource).toBe('child:resource');
    expect(resourceOf(tool)).toBe('');
    expect(replayOf(tool, '', ctx)).toBe('safe');
    expect(await tool.execute({ id: 'c', args: '' }, ctx)).toEqual({ output: 'child' });
  });

  it('does not change the parent', () => {
    const tool = toolFromInstance(new Parent());
    expect(tool.name).toBe('parent');
    expect(tool.resource).toBeUndefined();
    expect(annotationsOf(tool)?.destructive).toBe(false);
  });
});
