// Prompts, resources, templates and completions served beside tools, in both eras,
// through decorated classes: definitions, validation, pagination, binary contents,
// template matching, completion, a prompt that asks the user, subscriptions (2025), and
// who may see what.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { IsIn } from 'class-validator';
import {
  Complete,
  McpResource,
  McpResourceTemplate,
  mcpResourceFromInstance,
  newTool,
  Param,
  Prompt,
  promptFromInstance,
  Scopes,
  type ToolContext,
} from 'agenttool';
import { type McpServerOptions, McpToolServer } from 'agenttool/mcp';
import { overMemory } from './helpers';

class ReviewArgs {
  @Param('The code to review') code!: string;
  @Param('The language', { optional: true, completions: ['go', 'python', 'typescript'] })
  @IsIn(['go', 'python', 'typescript'])
  language?: string;
}

@Prompt({ name: 'review', title: 'Code review', description: 'Reviews code', args: ReviewArgs })
class Review {
  get(args: ReviewArgs) {
    return {
      description: `a review of ${args.language ?? 'some'} code`,
      messages: [
        { role: 'user' as const, content: { type: 'text' as const, text: `Review: ${args.code}` } },
        { role: 'assistant' as const, content: { type: 'text' as const, text: 'Looking.' } },
      ],
    };
  }
}

@Prompt({ name: 'greeting', description: 'Asks who to greet' })
class AskingPrompt {
  async get(_args: object, ctx: ToolContext) {
    const answer = await ctx.ask({
      message: 'Who?',
      schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept'
      ? `Greet ${typeof answer.content?.name === 'string' ? answer.content.name : '?'}`
      : 'Greet nobody';
  }
}

@Prompt({ name: 'secret', description: 'Only for admins' })
@Scopes('admin')
class SecretPrompt {
  get() {
    return 'the secret';
  }
}

@McpResource({ uri: 'test://readme', name: 'readme', mimeType: 'text/markdown' })
class Readme {
  read() {
    return '# Hello';
  }
}

@McpResource({ uri: 'test://logo', name: 'logo', mimeType: 'image/png' })
class Logo {
  read() {
    return new Uint8Array([137, 80, 78, 71]);
  }
}

@McpResource({ uri: 'test://notes', name: 'notes' })
class Notes {
  read() {
    return 'notes';
  }
}

class UserVars {
  @Param('The user id') id!: string;
}

@McpResourceTemplate({
  uriTemplate: 'users://{id}/profile',
  name: 'profile',
  mimeType: 'application/json',
  vars: UserVars,
})
class Profile {
  readonly #users = ['ada', 'bob', 'bea'];

  read(vars: UserVars, uri: string) {
    if (!this.#users.includes(vars.id)) throw new Error(`no user ${vars.id}`);
    return JSON.stringify({ id: vars.id, uri });
  }

  list() {
    return this.#users.map((id) => ({ uri: `users://${id}/profile`, name: `profile of ${id}` }));
  }

  @Complete('id')
  ids(value: string) {
    return this.#users.filter((id) => id.startsWith(value));
  }
}

const echo = newTool({ name: 'echo', description: 'Echoes', execute: () => ({ output: 'x' }) });

const servers: McpToolServer[] = [];
function serve(options: McpServerOptions = {}): McpToolServer {
  const server = new McpToolServer(
    {
      tools: [echo],
      prompts: [Review, AskingPrompt, SecretPrompt].map((c) => promptFromInstance(new c())),
      resources: [Readme, Logo, Notes, Profile].map((c) => mcpResourceFromInstance(new c())),
    },
    options,
  );
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** What both eras' clients do here: the v2 client's calls, which the v1 client shares. */
interface Primitives {
  listPrompts(params?: { cursor?: string }): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  listResources(params?: { cursor?: string }): Promise<{
    resources: { uri: string; name: string }[];
    nextCursor?: string;
  }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

async function legacyClient(server: McpToolServer): Promise<Primitives> {
  const { client } = await overMemory(server);
  return client as unknown as Primitives;
}

/** A result without what the 2026-07-28 wire adds to every one (server info, cache hints). */
function bare(result: unknown): unknown {
  const { _meta, ttlMs, cacheScope, resultType, ...rest } = result as Record<string, unknown>;
  void [_meta, ttlMs, cacheScope, resultType];
  return rest;
}

async function modernClient(server: McpToolServer): Promise<Primitives> {
  const handler = server.handler();
  const client = new Client(
    { name: 'plain', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  // The v2 client follows every cursor itself; a page at a time is a raw request.
  const paging = client as unknown as Primitives;
  paging.listResources = (params = {}) =>
    client.request({ method: 'resources/list', params }) as ReturnType<Primitives['listResources']>;
  return paging;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error('expected a rejection');
}

describe.each([
  ['2025 era', legacyClient],
  ['2026-07-28', modernClient],
] as const)('prompts and resources, %s', (_era, connect) => {
  test('lists prompts with their arguments, and hides those the caller may not use', async () => {
    const client = await connect(serve());
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'review',
        title: 'Code review',
        description: 'Reviews code',
        arguments: [
          { name: 'code', description: 'The code to review', required: true },
          { name: 'language', description: 'The language', required: false },
        ],
      },
      { name: 'greeting', description: 'Asks who to greet' },
    ]);
    expect(client.getServerCapabilities()).toMatchObject({
      prompts: { listChanged: false },
      resources: { listChanged: false },
      completions: {},
    });
    const unknown = await rejection(client.getPrompt({ name: 'secret' }));
    expect(unknown).toMatchObject({ code: -32602 });
    expect(unknown.message).toContain('unknown prompt "secret"');
    await client.close();
  });

  test('a caller holding the scope sees and gets the scoped prompt', async () => {
    const server = serve({ localAuth: { subject: 'ada', clientId: '', scopes: ['admin'] } });
    if (connect === modernClient) return; // HTTP callers are authorized by the endpoint's auth
    const client = await connect(server);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['review', 'greeting', 'secret']);
    expect(await client.getPrompt({ name: 'secret' })).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'the secret' } }],
    });
    await client.close();
  });

  test('gets a prompt with its arguments, and refuses invalid ones as invalid params', async () => {
    const client = await connect(serve());
    expect(
      bare(
        await client.getPrompt({ name: 'review', arguments: { code: 'x := 1', language: 'go' } }),
      ),
    ).toEqual({
      description: 'a review of go code',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review: x := 1' } },
        { role: 'assistant', content: { type: 'text', text: 'Looking.' } },
      ],
    });
    const missing = await rejection(client.getPrompt({ name: 'review', arguments: {} }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('missing required argument "code"');
    const invalid = await rejection(
      client.getPrompt({ name: 'review', arguments: { code: 'x', language: 'cobol' } }),
    );
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toContain('language');
    const extra = await rejection(
      client.getPrompt({ name: 'review', arguments: { code: 'x', tone: 'kind' } }),
    );
    expect(extra.message).toContain('unknown argument "tone"');
    await client.close();
  });

  test('lists resources page by page, the template’s own among them', async () => {
    const client = await connect(serve({ listPageSize: 2 }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      expect(page.resources.length).toBeLessThanOrEqual(2);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual([
      'test://readme',
      'test://logo',
      'test://notes',
      'users://ada/profile',
      'users://bob/profile',
      'users://bea/profile',
    ]);
    const badCursor = await rejection(client.listResources({ cursor: 'zzz' }));
    expect(badCursor.code).toBe(-32602);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
    await client.close();
  });

  test('reads text, bytes and templated resources; an unknown URI as the era says', async () => {
    const client = await connect(serve());
    expect(bare(await client.readResource({ uri: 'test://readme' }))).toEqual({
      contents: [{ uri: 'test://readme', mimeType: 'text/markdown', text: '# Hello' }],
    });
    expect(bare(await client.readResource({ uri: 'test://logo' }))).toEqual({
      contents: [{ uri: 'test://logo', mimeType: 'image/png', blob: 'iVBORw==' }],
    });
    expect(bare(await client.readResource({ uri: 'users://bob/profile' }))).toEqual({
      contents: [
        {
          uri: 'users://bob/profile',
          mimeType: 'application/json',
          text: '{"id":"bob","uri":"users://bob/profile"}',
        },
      ],
    });
    const failed = await rejection(client.readResource({ uri: 'users://zed/profile' }));
    expect(failed.code).toBe(-32603);
    expect(failed.message).toContain('no user zed');
    // SEP-2164's code in both eras, the URI in the error's data.
    const unknown = await rejection(client.readResource({ uri: 'test://nothing' }));
    expect(unknown).toMatchObject({ code: -32602, data: { uri: 'test://nothing' } });
    expect(unknown.message).toContain('unknown resource "test://nothing"');
    await client.close();
  });

  test('completes prompt arguments from a list and template variables from a method', async () => {
    const client = await connect(serve());
    expect(
      bare(
        await client.complete({
          ref: { type: 'ref/prompt', name: 'review' },
          argument: { name: 'language', value: 'py' },
        }),
      ),
    ).toEqual({ completion: { values: ['python'], total: 1, hasMore: false } });
    expect(
      bare(
        await client.complete({
          ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
          argument: { name: 'id', value: 'b' },
        }),
      ),
    ).toEqual({ completion: { values: ['bob', 'bea'], total: 2, hasMore: false } });
    expect(
      bare(
        await client.complete({
          ref: { type: 'ref/prompt', name: 'review' },
          argument: { name: 'code', value: '' },
        }),
      ),
    ).toEqual({ completion: { values: [], hasMore: false } });
    // An argument named after an object's inherited members names no completer.
    for (const name of ['constructor', 'toString', '__proto__']) {
      expect(
        bare(
          await client.complete({
            ref: { type: 'ref/prompt', name: 'review' },
            argument: { name, value: '' },
          }),
        ),
      ).toEqual({ completion: { values: [], hasMore: false } });
    }
    await client.close();
  });

  test('passes on the count a completer gives with some of its values, and caps a long list at 100', async () => {
    const numbers = Array.from({ length: 150 }, (_, i) => String(i));
    const answers: Record<string, unknown> = {
      page: { values: ['a', 'b'], total: 250, hasMore: true },
      unknown: { values: ['a'], hasMore: true },
      understated: { values: ['a', 'b', 'c'], total: 1 },
      whole: { values: ['a', 'b'] },
      long: numbers,
      longPage: { values: numbers, total: 400 },
      // Neither a list nor { values }: a completer written in JavaScript.
      broken: 'a, b',
    };
    const server = new McpToolServer({
      tools: [echo],
      prompts: [
        {
          name: 'pick',
          arguments: Object.keys(answers).map((name) => ({ name })),
          get: () => 'picked',
          completions: Object.fromEntries(
            Object.entries(answers).map(([name, answer]) => [name, () => answer as string[]]),
          ),
        },
      ],
    });
    servers.push(server);
    const client = await connect(server);
    const complete = async (name: string) =>
      bare(
        await client.complete({
          ref: { type: 'ref/prompt', name: 'pick' },
          argument: { name, value: '' },
        }),
      );
    expect(await complete('page')).toEqual({
      completion: { values: ['a', 'b'], total: 250, hasMore: true },
    });
    // More, and how many unknown: no total is made up.
    expect(await complete('unknown')).toEqual({ completion: { values: ['a'], hasMore: true } });
    // A total below the values given says at least the values.
    expect(await complete('understated')).toEqual({
      completion: { values: ['a', 'b', 'c'], total: 3, hasMore: false },
    });
    expect(await complete('whole')).toEqual({
      completion: { values: ['a', 'b'], total: 2, hasMore: false },
    });
    expect(await complete('long')).toEqual({
      completion: { values: numbers.slice(0, 100), total: 150, hasMore: true },
    });
    expect(await complete('longPage')).toEqual({
      completion: { values: numbers.slice(0, 100), total: 400, hasMore: true },
    });
    const broken = await rejection(complete('broken'));
    expect(broken.code).toBe(-32603);
    expect(broken.message).toContain(
      'completion of "broken": the completer returned neither a list of strings nor { values }',
    );
    await client.close();
  });
});

test('a server of tools alone offers no prompts, resources or completions', async () => {
  const server = new McpToolServer([echo]);
  servers.push(server);
  const { client, close } = await overMemory(server);
  const capabilities = client.getServerCapabilities();
  expect(capabilities?.prompts).toBeUndefined();
  expect(capabilities?.resources).toBeUndefined();
  expect(capabilities?.completions).toBeUndefined();
  await close();
});

test('2025 era: a prompt asks the user through elicitation', async () => {
  const server = serve();
  const { client, close } = await overMemory(server, {
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler(ElicitRequestSchema, () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  expect(await client.getPrompt({ name: 'greeting' })).toEqual({
    messages: [{ role: 'user', content: { type: 'text', text: 'Greet Ada' } }],
  });
  await close();
});

test('2026-07-28: a prompt asks the user with an input request, and the retry renders it', async () => {
  const server = serve();
  const handler = server.handler();
  const client = new Client(
    { name: 'manual', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  const first = await client.request(
    { method: 'prompts/get', params: { name: 'greeting' } },
    { allowInputRequired: true },
  );
  const inputRequests = first.inputRequests as Record<string, { method: string }>;
  const [key] = Object.keys(inputRequests);
  expect(inputRequests[key!]).toMatchObject({ method: 'elicitation/create' });
  expect(typeof first.requestState).toBe('string');
  const second = await client.request(
    {
      method: 'prompts/get',
      params: {
        name: 'greeting',
        inputResponses: { [key!]: { action: 'accept', content: { name: 'Bob' } } },
        requestState: first.requestState,
      },
    },
    { allowInputRequired: true },
  );
  expect(second).toMatchObject({
    messages: [{ role: 'user', content: { type: 'text', text: 'Greet Bob' } }],
  });
  await client.close();
});

test('2025 era: a subscribed client is told when its resource changes, and no more once unsubscribed', async () => {
  const server = serve();
  expect(server.resources.map((r) => r.name)).toEqual(['readme', 'logo', 'notes', 'profile']);
  const { client, close } = await overMemory(server);
  expect(client.getServerCapabilities()?.resources).toEqual({
    listChanged: false,
    subscribe: true,
  });
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notice) => {
    updates.push(notice.params.uri);
  });
  await client.subscribeResource({ uri: 'test://readme' });
  await server.resourceUpdated('test://readme');
  await server.resourceUpdated('test://notes'); // not subscribed
  await client.ping(); // the notices before it have arrived
  expect(updates).toEqual(['test://readme']);
  await client.unsubscribeResource({ uri: 'test://readme' });
  await server.resourceUpdated('test://readme');
  await client.ping();
  expect(updates).toEqual(['test://readme']);
  const unknown = await rejection(client.subscribeResource({ uri: 'test://nothing' }));
  expect(unknown).toMatchObject({ code: -32602, data: { uri: 'test://nothing' } });
  await close();
});
