import { Executor, newTool, readToolSource, type Tool, ToolSet } from 'agenttool';

const tool = (name: string): Tool => newTool({ name, execute: () => ({ output: name }) });

describe('readToolSource', () => {
  it('reads one tool, an array, a ToolSet and any iterable, in order, with no executor', () => {
    const a = tool('a');
    const b = tool('b');
    expect(readToolSource(a, 'host')).toEqual({ tools: [a], executor: undefined });
    expect(readToolSource([a, b], 'host').tools).toEqual([a, b]);
    expect(readToolSource(new ToolSet([b, a]), 'host').tools).toEqual([b, a]);
    function* both(): Generator<Tool> {
      yield a;
      yield b;
    }
    expect(readToolSource(both(), 'host').tools).toEqual([a, b]);
  });

  it('reads an app (tools and an executor) as its tools and its executor, though it has an execute of its own', () => {
    const executor = new Executor({ maxParallel: 2 });
    const app = { tools: new ToolSet([tool('a')]), executor, execute: () => undefined };
    const read = readToolSource(app, 'host');
    expect(read.executor).toBe(executor);
    expect(read.tools.map((t) => t.name)).toEqual(['a']);
  });

  it.each([
    [null, 'host: give a tool, an iterable of tools, or an app, not null'],
    [undefined, 'host: give a tool, an iterable of tools, or an app, not undefined'],
    [42, 'host: give a tool, an iterable of tools, or an app, not number 42'],
    ['bash', 'host: give a tool, an iterable of tools, or an app, not a string'],
    [
      { name: 'x' },
      'host: give a tool, an iterable of tools, or an app; this object is none of them',
    ],
    [
      [tool('a'), null],
      'host: tool[1]: not a tool (a tool has a string name and an execute function): null',
    ],
    [
      [[tool('a')]],
      'host: tool[0]: not a tool (a tool has a string name and an execute function): an array',
    ],
    [[tool('')], 'host: tool[0]: empty name'],
    [[tool('a'), tool('b'), tool('a')], 'host: tool "a": duplicate name'],
    [
      [class Greeter {}],
      'host: tool[0]: not a tool but the function or class Greeter; a @Tool class becomes a tool with toolFromInstance(new Greeter(…))',
    ],
  ])(
    'refuses %p with an INVALID_TOOL_SET error that says what was wrong and where',
    (source, message) => {
      expect(() => readToolSource(source, 'host')).toThrow(
        expect.objectContaining({ code: 'INVALID_TOOL_SET', message }) as Error,
      );
    },
  );
});
