import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  annotationsOf,
  createContext,
  definitionHash,
  type Elicitation,
  newTool,
  ProgressInfo,
  recordable,
  type Result,
  type Tool,
} from 'agenttool';
import {
  connectMcp,
  McpToolServer,
  RECORD_META_KEY,
  type RemoteTools,
  RemoteRecord,
} from 'agenttool/mcp';
import { RECORD_META_KEY as CLIENT_RECORD_META_KEY } from '../../src/mcp/client/record';

const upper = newTool({
  name: 'upper',
  description: 'Upper-cases text',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text' } },
    required: ['text'],
  },
  annotations: {
    title: 'Upper',
    readOnly: true,
    destructive: false,
    idempotent: true,
    openWorld: false,
  },
  execute: (call) => ({ output: (JSON.parse(call.args) as { text: string }).text.toUpperCase() }),
});

const bare = newTool({
  name: 'bare',
  description: '',
  execute: () => ({ output: 'bare' }),
});

const strict = newTool({
  name: 'strict',
  description: 'A strict tool',
  strict: true,
  parameters: {
    type: 'object',
    properties: { n: { type: 'integer' } },
    required: ['n'],
    additionalProperties: false,
  },
  execute: () => ({ output: 'ok' }),
});

const spawn = newTool({
  name: 'spawn',
  description: 'Starts a process group and records it',
  execute: () => ({
    output: 'started',
    details: recordable('shell:process-group', { pgid: 4242 }),
  }),
});

const fails = newTool({
  name: 'fails',
  description: 'Always fails',
  execute: () => {
    throw new Error('disk on fire');
  },
});

const confirm = newTool({
  name: 'confirm',
  description: 'Asks before acting',
  execute: async (_call, ctx) => {
    const answer = await ctx.ask({
      message: 'Really?',
      schema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
    });
    return { output: JSON.stringify(answer) };
  },
});

const proxied = newTool({
  name: 'proxied',
  description: 'Reports progress with its own numbers',
  execute: (_call, ctx) => {
    ctx.progress(new ProgressInfo(10, 40, 'a quarter'));
    ctx.progress(new ProgressInfo(40, 40, 'all'));
    return { output: 'done' };
  },
});

const local = [upper, bare, strict, spawn, fails, confirm, proxied];

type Connect = () => Promise<{ remote: RemoteTools; stop: () => Promise<void> }>;

const inMemory: Connect = async () => {
  const server = new McpToolServer(local, { name: 'ours', version: '1.2.3' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const remote = await connectMcp({ transport: clientSide, elicitation: true });
  return { remote, stop: async () => (await remote.close(), await server.close()) };
};

const overHttp: Connect = async () => {
  const server = new McpToolServer(local, { name: 'ours', version: '1.2.3' });
  const listener = await server.listenHttp();
  const remote = await connectMcp({ transport: { url: listener.url }, elicitation: true });
  return {
    remote,
    stop: async () => {
      await remote.close();
      await listener.close();
      await server.close();
    },
  };
};

function find(remote: RemoteTools, name: string): Tool {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no ${name}`);
  return tool;
}

function run(
  tool: Tool,
  args: string,
  init: Parameters<typeof createContext>[0] = {},
): Promise<Result> {
  const call = init.call ?? { id: 'call_1', args };
  return Promise.resolve(tool.execute(call, createContext({ ...init, call })));
}

it('both adapters use the same record _meta key', () => {
  expect(CLIENT_RECORD_META_KEY).toBe(RECORD_META_KEY);
});

describe.each([
  ['in memory', inMemory],
  ['over Streamable HTTP', overHttp],
])('our server behind our client, %s', (_, connect) => {
  let remote: RemoteTools;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ remote, stop } = await connect());
  });

  afterAll(async () => {
    await stop();
  });

  it('serves the server info', () => {
    expect(remote.serverInfo).toEqual({ name: 'ours', version: '1.2.3' });
  });

  it('round-trips definitions with the same hash; strict does not cross', () => {
    expect(remote.tools().map((t) => t.name)).toEqual(local.map((t) => t.name));
    for (const name of ['upper', 'bare', 'spawn']) {
      const mine = local.find((t) => t.name === name) as Tool;
      expect(definitionHash(find(remote, name))).toBe(definitionHash(mine));
    }
    expect(find(remote, 'strict').strict).not.toBe(true);
    expect(find(remote, 'strict').parameters).toEqual(strict.parameters);
  });

  it('round-trips annotations, and none stays none', () => {
    expect(annotationsOf(find(remote, 'upper'))).toEqual(annotationsOf(upper));
    expect(annotationsOf(find(remote, 'bare'))).toBeUndefined();
  });

  it('calls through, and a failure arrives with its message once', async () => {
    await expect(run(find(remote, 'upper'), '{"text":"abc"}')).resolves.toMatchObject({
      output: 'ABC',
    });
    await expect(run(find(remote, 'fails'), '{}')).rejects.toThrow(/^disk on fire$/);
    await expect(run(find(remote, 'upper'), '{}')).rejects.toThrow(/invalid arguments/);
  });

  it('records cross with their namespace and data', async () => {
    const { details } = await run(find(remote, 'spawn'), '{}');
    expect(details).toBeInstanceOf(RemoteRecord);
    expect((details as RemoteRecord).recordNS()).toBe('shell:process-group');
    expect((details as RemoteRecord).rawJson()).toBe('{"pgid":4242}');
  });

  it('elicitation crosses both ways', async () => {
    const asked: Elicitation[] = [];
    const { output } = await run(find(remote, 'confirm'), '{}', {
      elicitor: (q) => (asked.push(q), { action: 'accept', content: { confirm: true } }),
    });
    expect(asked.map((q) => q.message)).toEqual(['Really?']);
    expect(JSON.parse(output as string)).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('progress keeps the origin numbers', async () => {
    const updates: unknown[] = [];
    await run(find(remote, 'proxied'), '{}', {
      call: { id: 'call_1', args: '{}', onUpdate: (u) => updates.push(u.details) },
    });
    expect(updates).toEqual([
      new ProgressInfo(10, 40, 'a quarter'),
      new ProgressInfo(40, 40, 'all'),
    ]);
  });
});
