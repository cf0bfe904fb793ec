// Prompts and MCP resources registered through @Module: built and injected as tools are,
// guarded by the module's guards, checked with the modules, served by serveTools(app).
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpResource, McpResourceTemplate, newTool, Param, Prompt, Tool } from 'agenttool';
import { CallSession, Injectable, Module, ModuleError, ToolApp } from 'agenttool/di';
import { serveTools } from 'agenttool/mcp';

@Injectable()
class Greetings {
  readonly word = 'Hello';
}

/** One per session: counts what the session read. */
@Injectable({ scope: 'session' })
class Visits {
  count = 0;
}

class NameArgs {
  @Param('Who') name!: string;
}

@Prompt({ name: 'greet', description: 'Greets someone', args: NameArgs })
class GreetPrompt {
  constructor(private readonly greetings: Greetings) {}

  get(args: NameArgs) {
    return `${this.greetings.word}, ${args.name}`;
  }
}

@McpResource({ uri: 'app://visits', name: 'visits' })
class VisitsResource {
  constructor(
    private readonly visits: Visits,
    private readonly session: CallSession,
  ) {}

  read() {
    this.visits.count++;
    return `${this.visits.count} in ${this.session.current === undefined ? 'no session' : 'a session'}`;
  }
}

/** Transient: one instance per request, closed when the request's method settles. */
@Injectable({ scope: 'transient' })
class Scratch {
  static closed = 0;
  close(): void {
    Scratch.closed++;
  }
}

class IdVars {
  @Param('The id') id!: string;
}

@McpResourceTemplate({ uriTemplate: 'app://items/{id}', name: 'item', vars: IdVars })
@Injectable({ scope: 'transient' })
class ItemResource {
  constructor(private readonly scratch: Scratch) {}

  read(vars: IdVars) {
    return `item ${vars.id} (${this.scratch instanceof Scratch ? 'with scratch' : ''})`;
  }
}

@Tool({ name: 'noop', description: 'Does nothing' })
class Noop {
  execute() {
    return 'ok';
  }
}

@Module({
  tools: [Noop],
  prompts: [GreetPrompt],
  resources: [VisitsResource, ItemResource],
  providers: [Greetings, Visits, Scratch],
})
class AppModule {}

async function connected(app: ToolApp): Promise<{ client: Client; close(): Promise<void> }> {
  const server = serveTools(app);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientEnd);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

test('prompts and resources get their dependencies, per app, session or request', async () => {
  const app = await ToolApp.create(AppModule);
  expect(app.prompts.map((p) => p.name)).toEqual(['greet']);
  expect(app.resources.map((r) => r.name)).toEqual(['visits', 'item']);
  const first = await connected(app);
  const second = await connected(app);
  try {
    expect(await first.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada' } }],
    });
    const read = async (client: Client, uri: string) => {
      const { contents } = await client.readResource({ uri });
      return (contents[0] as { text: string }).text;
    };
    expect(await read(first.client, 'app://visits')).toBe('1 in a session');
    expect(await read(first.client, 'app://visits')).toBe('2 in a session');
    // Another session has its own count.
    expect(await read(second.client, 'app://visits')).toBe('1 in a session');
    const closedBefore = Scratch.closed;
    expect(await read(first.client, 'app://items/42')).toBe('item 42 (with scratch)');
    expect(Scratch.closed).toBe(closedBefore + 1);
  } finally {
    await first.close();
    await second.close();
    await app.close();
  }
});

test('typed prompt arguments and template variables read the value their text spells, and other text is refused by name', async () => {
  class PageVars {
    @Param('The page', { type: 'integer' }) page!: number;
    @Param('Archived pages only') archived!: boolean;
  }
  @McpResourceTemplate({
    uriTemplate: 'app://pages/{page}/{archived}',
    name: 'page',
    vars: PageVars,
  })
  class PageResource {
    read(vars: PageVars) {
      return `${typeof vars.page} ${vars.page} ${typeof vars.archived} ${vars.archived}`;
    }
  }
  class ScoreArgs {
    @Param('The score') score!: number;
    @Param('Say it loudly', { optional: true }) loud?: boolean;
  }
  @Prompt({ name: 'score', args: ScoreArgs })
  class ScorePrompt {
    get(args: ScoreArgs) {
      return `${typeof args.score} ${args.score * 2} ${String(args.loud)}`;
    }
  }
  @Module({ prompts: [ScorePrompt], resources: [PageResource] })
  class Typed {}
  const app = await ToolApp.create(Typed);
  const served = await connected(app);
  try {
    const { client } = served;
    const read = async (uri: string) =>
      ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await read('app://pages/3/true')).toBe('number 3 boolean true');
    expect(await read('app://pages/12/false')).toBe('number 12 boolean false');
    const text = async (args: Record<string, string>) => {
      const got = await client.getPrompt({ name: 'score', arguments: args });
      return (got.messages[0]?.content as { text: string }).text;
    };
    expect(await text({ score: '-1.5e1' })).toBe('number -30 undefined');
    expect(await text({ score: '2', loud: 'true' })).toBe('number 4 true');
    // Text that spells no value of the field's type is refused, naming the field.
    const refused = async (run: () => Promise<unknown>) =>
      run().then(
        () => 'answered',
        (error: unknown) => (error as Error).message,
      );
    expect(await refused(() => read('app://pages/three/true'))).toContain(
      'invalid arguments: page: expected integer, got "three"',
    );
    expect(await refused(() => read('app://pages/1.5/true'))).toContain('page: ');
    expect(await refused(() => read('app://pages/3/yes'))).toContain(
      'archived: expected boolean, got "yes"',
    );
    expect(await refused(() => text({ score: '0x10' }))).toContain(
      'score: expected number, got "0x10"',
    );
    expect(await refused(() => text({ score: ' 1' }))).toContain('score: expected number');
  } finally {
    await served.close();
    await app.close();
  }
});

test('module guards and @Scopes hide prompts and resources as they hide tools', async () => {
  @Prompt({ name: 'open', description: 'Open to all' })
  class OpenPrompt {
    get() {
      return 'open';
    }
  }
  @McpResource({ uri: 'app://closed', name: 'closed' })
  class ClosedResource {
    read() {
      return 'closed';
    }
  }
  @Module({ prompts: [OpenPrompt], resources: [ClosedResource], guards: [() => false] })
  class Guarded {}
  const app = await ToolApp.create(Guarded);
  const { client, close } = await connected(app);
  try {
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.readResource({ uri: 'app://closed' })).rejects.toMatchObject({
      code: -32602,
    });
  } finally {
    await close();
    await app.close();
  }
});

test('every problem of the prompt and resource classes is reported with the modules', async () => {
  class NotAPrompt {}
  @Prompt({ name: 'dup', description: 'One' })
  class DupOne {
    get() {
      return 'a';
    }
  }
  @Prompt({ name: 'dup', description: 'Two' })
  class DupTwo {
    get() {
      return 'b';
    }
  }
  class CountArgs {
    @Param('Tags', { items: 'string' }) tags!: string[];
  }
  @Prompt({ name: 'numbers', args: CountArgs })
  class NumberPrompt {
    get() {
      return 'n';
    }
  }
  @McpResource({ uri: 'no scheme', name: 'bad' })
  class NoRead {}
  @Module({
    prompts: [NotAPrompt, DupOne, DupTwo, NumberPrompt],
    resources: [NoRead],
    tools: [],
  })
  class Broken {}
  const error = await ToolApp.create(Broken).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModuleError);
  const message = (error as Error).message;
  expect(message).toContain('NotAPrompt at prompts[0], but it has no @Prompt decorator');
  expect(message).toContain('DupTwo and DupOne both serve the prompt name "prompt:dup"');
  expect(message).toContain('field "tags" is an array; MCP gives prompt arguments as text');
  expect(message).toContain('uri "no scheme" is not a URI');
  expect(message).toContain('NoRead: the class needs a read(ctx) method');
});

test('a tool set without prompts serves as before', async () => {
  const server = serveTools([
    newTool({ name: 't', description: 'T', execute: () => ({ output: 'x' }) }),
  ]);
  expect(server.prompts).toEqual([]);
  expect(server.resources).toEqual([]);
  await server.close();
});
