// Tool transforms: a tool renamed, described anew, with arguments hidden behind fixed
// values and tagged; a set filtered by name and tag. The definition (and its hash)
// changes as it must, every other optional property is forwarded.
import {
  accessOf,
  annotationsOf,
  type Call,
  confinedBy,
  createContext,
  definitionHash,
  definitionOf,
  handleArgumentOf,
  isCloser,
  isSequential,
  isStrict,
  newTool,
  OPTIONAL_TOOL_PROPERTIES,
  outputSchemaOf,
  replayOf,
  resourceOf,
  tagsOf,
  taskSupportOf,
  text,
  type Tool,
  transformTool,
  transformTools,
  unwrap,
  validatesOwnArguments,
  wrap,
} from 'agenttool';

const ctx = createContext();

/** A tool with every optional property, whose execute answers with the call it got. */
function everything(closed: string[] = []): Tool {
  return newTool({
    name: 'search',
    description: 'Search the index',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        index: { type: 'string', enum: ['docs', 'code'] },
        limit: { type: 'integer' },
      },
      required: ['query', 'index'],
      additionalProperties: false,
    },
    strict: true,
    sequential: true,
    resource: 'index',
    annotations: { title: 'Search', readOnly: true, openWorld: false },
    confined: (args) => ({ confined: args.includes('"code"'), by: 'bubblewrap' }),
    replay: (args) => (args.includes('"docs"') ? 'safe' : 'unknown'),
    close: () => void closed.push('search'),
    validatesArguments: true,
    outputSchema: { type: 'object', properties: { hits: { type: 'integer' } } },
    access: { scopes: ['search'] },
    taskSupport: 'optional',
    handleArgument: 'session_id',
    tags: ['read'],
    execute: (call) => text(JSON.stringify({ args: call.args, value: call.value ?? null })),
  });
}

async function run(tool: Tool, args: string): Promise<{ args: string; value: unknown }> {
  const call: Call = { id: 'c1', args };
  const result = await tool.execute(call, createContext({ call }));
  return JSON.parse(result.output as string) as { args: string; value: unknown };
}

describe('transformTool', () => {
  it('renames and describes anew: the definition and its hash change, nothing else', async () => {
    const closed: string[] = [];
    const inner = everything(closed);
    const tool = transformTool(inner, { rename: 'find', description: 'Find in the index' });
    expect(definitionOf(tool)).toEqual({
      ...definitionOf(inner),
      name: 'find',
      description: 'Find in the index',
    });
    expect(definitionHash(tool)).not.toBe(definitionHash(inner));
    expect(definitionHash(tool)).toBe(
      definitionHash({ ...definitionOf(inner), name: 'find', description: 'Find in the index' }),
    );
    for (const property of OPTIONAL_TOOL_PROPERTIES) expect(property in tool).toBe(true);
    expect(isStrict(tool)).toBe(true);
    expect(isSequential(tool)).toBe(true);
    expect(tool.resource).toBe('index');
    expect(resourceOf(tool)).toBe(resourceOf(inner));
    expect(annotationsOf(tool)).toEqual(annotationsOf(inner));
    expect(validatesOwnArguments(tool)).toBe(true);
    expect(outputSchemaOf(tool)).toEqual(outputSchemaOf(inner));
    expect(accessOf(tool)).toEqual(accessOf(inner));
    expect(taskSupportOf(tool)).toEqual({ mode: 'optional', questionsFirst: false });
    expect(handleArgumentOf(tool)).toBe('session_id');
    expect(tagsOf(tool)).toEqual(['read']);
    for (const args of ['{"query":"a","index":"code"}', '{"query":"a","index":"docs"}']) {
      expect(confinedBy(tool, args, ctx)).toEqual(confinedBy(inner, args, ctx));
      expect(replayOf(tool, args, ctx)).toBe(replayOf(inner, args, ctx));
    }
    expect(unwrap(tool)).toBe(inner);
    expect(isCloser(tool)).toBe(true);
    await tool.close?.();
    expect(closed).toEqual(['search']);
    expect(await run(tool, '{"query":"a","index":"docs"}')).toEqual({
      args: '{"query":"a","index":"docs"}',
      value: null,
    });
  });

  it('hides a fixed argument: out of properties and required, merged into every call', async () => {
    const inner = everything();
    const tool = transformTool(inner, { fixed: { index: 'code' } });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'integer' },
      },
      required: ['query'],
      additionalProperties: false,
    });
    expect(definitionHash(tool)).not.toBe(definitionHash(inner));
    // The caller's text is kept byte for byte after the fixed members.
    const big = '{"query":"x", "limit": 12345678901234567890}';
    const got = await run(tool, big);
    expect(got.args).toBe('{"index":"code","query":"x", "limit": 12345678901234567890}');
    expect(got.value).toMatchObject({ index: 'code', query: 'x' });
    expect((await run(tool, '')).args).toBe('{"index":"code"}');
    expect((await run(tool, ' {} ')).args).toBe('{"index":"code"}');
    // The per-call readers see the arguments the tool will run with.
    expect(confinedBy(tool, '{"query":"a"}', ctx)).toEqual({ confined: true, by: 'bubblewrap' });
    expect(replayOf(tool, '{"query":"a"}', ctx)).toBe('unknown');
    // The host checks the narrowed schema; the tool still checks the whole.
    expect(validatesOwnArguments(tool)).toBe(false);
  });

  it('refuses a caller that sends a fixed argument, whatever its value', async () => {
    const tool = transformTool(everything(), { fixed: { index: 'code' } });
    for (const args of ['{"query":"a","index":"docs"}', '{"query":"a","index":"code"}']) {
      await expect(run(tool, args)).rejects.toThrow(
        'invalid arguments: unexpected property "index": the host fixes its value; leave it out',
      );
    }
    const call: Call = { id: 'c', args: '{"index":"docs"}', value: { index: 'docs' } };
    await expect(Promise.resolve(tool.execute(call, ctx))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
    await expect(run(tool, '[1]')).rejects.toThrow('invalid arguments: expected object, got array');
  });

  it('adds tags to the tool’s own, each once', () => {
    const tool = transformTool(everything(), { tags: ['safe', 'read'] });
    expect(tagsOf(tool)).toEqual(['read', 'safe']);
    expect(definitionHash(tool)).toBe(definitionHash(everything()));
  });

  it('refuses a spec it cannot apply, naming the tool and the member', () => {
    const tool = everything();
    expect(() => transformTool(tool, { fixed: { nope: 1 } })).toThrow(
      'transformTool("search"): fixed "nope": the tool has no such argument (its arguments: "query", "index", "limit")',
    );
    expect(() => transformTool(tool, { fixed: { index: 'nope' } })).toThrow(
      'transformTool("search"): fixed "index": the tool would refuse the value: invalid arguments: expected one of ["docs", "code"], got "nope"',
    );
    expect(() => transformTool(tool, { rename: '' })).toThrow(
      'transformTool("search"): rename must be a non-empty string',
    );
    expect(() => transformTool(tool, { tags: [''] })).toThrow(
      'tags must be a list of non-empty strings',
    );
  });

  it('chains with wrap: a wrapper of a transformed tool reports the new definition', () => {
    const tool = wrap(transformTool(everything(), { rename: 'find', tags: ['x'] }), () => text(''));
    expect(tool.name).toBe('find');
    expect(tagsOf(tool)).toEqual(['read', 'x']);
  });
});

describe('transformTools', () => {
  const tools = [
    newTool({ name: 'read_file', execute: () => text('') }),
    newTool({ name: 'write_file', execute: () => text(''), tags: ['writes'] }),
    newTool({ name: 'delete_file', execute: () => text(''), tags: ['writes', 'danger'] }),
    newTool({ name: 'list', execute: () => text('') }),
  ];
  const names = (set: readonly Tool[]) => set.map((t) => t.name);

  it('includes and excludes by name or pattern, in the set’s order', () => {
    expect(names(transformTools(tools, { include: ['*_file'] }))).toEqual([
      'read_file',
      'write_file',
      'delete_file',
    ]);
    expect(names(transformTools(tools, { include: ['*_file'], exclude: ['del*'] }))).toEqual([
      'read_file',
      'write_file',
    ]);
    expect(names(transformTools(tools, { include: ['li?t', 'read_file'] }))).toEqual([
      'read_file',
      'list',
    ]);
  });

  it('filters by tag after the transforms', () => {
    const spec = { transform: { list: { tags: ['safe'] }, read_file: { tags: ['safe'] } } };
    expect(names(transformTools(tools, { ...spec, includeTags: ['safe'] }))).toEqual([
      'read_file',
      'list',
    ]);
    expect(names(transformTools(tools, { excludeTags: ['danger'] }))).toEqual([
      'read_file',
      'write_file',
      'list',
    ]);
  });

  it('refuses a transform naming no tool, and two tools ending with one name', () => {
    expect(() => transformTools(tools, { transform: { lst: { rename: 'x' } } })).toThrow(
      'transformTools: transform "lst": no tool has that name',
    );
    expect(() => transformTools(tools, { transform: { list: { rename: 'read_file' } } })).toThrow(
      'transformTools: tools "read_file" and "list" would both be named "read_file"; rename one',
    );
  });
});
