/**
 * The descriptor of a tool class: read and built once, shared by every tool made from
 * the class, and the source of a tool's claim that it validates its own arguments.
 */
import {
  createContext,
  definitionHash,
  Param,
  Strict,
  Tool,
  toolDescriptorOf,
  toolFromInstance,
  validatesOwnArguments,
  ValidationError,
  wrap,
} from 'agenttool';

class Args {
  @Param('Who') name!: string;
}

@Tool({ name: 'greet', description: 'Greets', args: Args })
@Strict()
class Greet {
  execute(args: Args): string {
    return `hi ${args.name}`;
  }
}

@Tool({ name: 'loose', description: 'Decodes only', args: Args, validate: false })
class Loose {
  execute(args: Args): string {
    return args.name;
  }
}

@Tool({
  name: 'verbatim',
  description: 'Serves its own schema',
  parameters: { type: 'object', properties: { name: { type: 'string' } } },
})
class Verbatim {
  execute(): string {
    return '';
  }
}

describe('toolDescriptorOf', () => {
  it('is built once per class and shared by every tool of the class (its stated promise)', () => {
    const descriptor = toolDescriptorOf(Greet);
    expect(toolDescriptorOf(Greet)).toBe(descriptor);
    expect(descriptor.name).toBe('greet');
    expect(descriptor.args).toBe(Args);
    expect(descriptor.fields.map((f) => f.name)).toEqual(['name']);
    expect(descriptor.properties.strict).toBe(true);
  });

  it('carries the served schema and the definition hash of every tool made from the class', () => {
    const descriptor = toolDescriptorOf(Greet);
    const tool = toolFromInstance(new Greet());
    expect(tool.parameters).toEqual(descriptor.parameters);
    expect(descriptor.definitionHash).toBe(definitionHash(tool));
  });

  it('keeps its schema immutable: a tool gets a copy of its own', () => {
    const descriptor = toolDescriptorOf(Greet);
    const tool = toolFromInstance(new Greet());
    (tool.parameters as { title?: string }).title = 'changed';
    expect(descriptor.parameters.title).toBeUndefined();
    expect(() => {
      (descriptor.parameters as { title?: string }).title = 'changed';
    }).toThrow(TypeError);
  });
});

describe('a tool that validates its own arguments says so', () => {
  it('when made from a class whose arguments are validated against its schema', async () => {
    const tool = toolFromInstance(new Greet());
    expect(toolDescriptorOf(Greet).validatesArguments).toBe(true);
    expect(validatesOwnArguments(tool)).toBe(true);
    await expect(tool.execute({ id: '1', args: '{"name":1}' }, createContext())).rejects.toThrow(
      new ValidationError('name', 'expected string, got 1'),
    );
  });

  it('not when it only decodes them: validate false, or parameters served verbatim', () => {
    expect(validatesOwnArguments(toolFromInstance(new Loose()))).toBe(false);
    expect(validatesOwnArguments(toolFromInstance(new Verbatim()))).toBe(false);
    expect(toolDescriptorOf(Verbatim).validatesArguments).toBe(false);
  });

  it('through a wrapper too, which hands its calls on', () => {
    const inner = toolFromInstance(new Greet());
    expect(validatesOwnArguments(wrap(inner, (call, ctx) => inner.execute(call, ctx)))).toBe(true);
  });
});
