// `McpToolServer.swap`: what `agenttool dev` does on each edit. The server and its
// connections stay; the tools, prompts and resources behind them are replaced, and
// clients are told what changed.
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { definitionHash, newTool, type Prompt, type Tool } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';
import { deferred, firstText, overMemory } from './helpers';

const echo = newTool({
  name: 'echo',
  description: 'Echoes',
  execute: () => ({ output: 'echo 1' }),
});
const echoAgain = newTool({
  name: 'echo',
  description: 'Echoes, said otherwise',
  execute: () => ({ output: 'echo 2' }),
});
const same = newTool({ name: 'same', description: 'Stays', execute: () => ({ output: 'same' }) });
const added = newTool({ name: 'added', description: 'New', execute: () => ({ output: 'added' }) });

function prompt(name: string, text: string): Prompt {
  return {
    name,
    description: text,
    get: () => ({ messages: [{ role: 'user', content: { type: 'text', text } }] }),
  };
}

const servers: McpToolServer[] = [];
function serve(tools: Tool[], prompts: Prompt[] = []): McpToolServer {
  const server = new McpToolServer({ tools, prompts }, { listChanged: true });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

test('a swap keeps the connection, tells the client, and serves the new tools', async () => {
  const server = serve([echo, same]);
  const connected = await overMemory(server);
  try {
    const { client } = connected;
    const notices: string[] = [];
    const noticed = deferred();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notices.push('tools');
      noticed.resolve();
    });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);

    const changes = server.swap({ tools: [echoAgain, same, added] });
    expect(changes).toEqual({
      added: ['added'],
      removed: [],
      changed: [{ name: 'echo', from: definitionHash(echo), to: definitionHash(echoAgain) }],
      promptsChanged: false,
      resourcesChanged: false,
    });
    await noticed.promise;
    const listed = await client.listTools();
    expect(listed.tools.map((t) => [t.name, t.description])).toEqual([
      ['echo', 'Echoes, said otherwise'],
      ['same', 'Stays'],
      ['added', 'New'],
    ]);
    expect(firstText(await client.callTool({ name: 'echo', arguments: {} }))).toBe('echo 2');
    expect(firstText(await client.callTool({ name: 'added', arguments: {} }))).toBe('added');

    // A tool the new source lacks is gone; the same connection goes on.
    expect(server.swap({ tools: [same] })).toMatchObject({ removed: ['echo', 'added'] });
    const gone = await client.callTool({ name: 'echo', arguments: {} });
    expect(gone.isError).toBe(true);
    expect(firstText(gone)).toBe('unknown tool "echo"');
    expect(notices).toEqual(['tools', 'tools']);
  } finally {
    await connected.close();
  }
});

test('a swap that changes nothing sends nothing', async () => {
  const server = serve([echo]);
  const connected = await overMemory(server);
  try {
    let notices = 0;
    const noticed = deferred();
    connected.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notices++;
      noticed.resolve();
    });
    expect(server.swap([echo])).toEqual({
      added: [],
      removed: [],
      changed: [],
      promptsChanged: false,
      resourcesChanged: false,
    });
    // A notice for the first swap would arrive before the second's, on the same transport.
    server.swap([echo, added]);
    await noticed.promise;
    expect(notices).toBe(1);
  } finally {
    await connected.close();
  }
});

test('a swap to tools of the same definitions lists and runs the new ones, guards included', async () => {
  const open = newTool({
    name: 'echo',
    description: 'Echoes',
    execute: () => ({ output: 'open' }),
  });
  const closed = newTool({
    name: 'echo',
    description: 'Echoes',
    execute: () => ({ output: 'closed' }),
    access: { guards: [() => false] },
  });
  const server = serve([open]);
  const connected = await overMemory(server);
  try {
    const { client } = connected;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    // Nothing a client reads changed, so nothing is sent; what is served did change.
    expect(server.swap([closed])).toMatchObject({ added: [], removed: [], changed: [] });
    expect(server.tools).toEqual([closed]);
    expect((await client.listTools()).tools).toEqual([]);
    const refused = await client.callTool({ name: 'echo', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(server.swap([open])).toMatchObject({ changed: [] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(firstText(await client.callTool({ name: 'echo', arguments: {} }))).toBe('open');
  } finally {
    await connected.close();
  }
});

test('a call running when the tools are swapped finishes on the tool it started with', async () => {
  const started = deferred();
  const release = deferred();
  const slow = newTool({
    name: 'slow',
    description: 'Waits',
    execute: async () => {
      started.resolve();
      await release.promise;
      return { output: 'old answer' };
    },
  });
  const server = serve([slow]);
  const connected = await overMemory(server);
  try {
    const running = connected.client.callTool({ name: 'slow', arguments: {} });
    await started.promise;
    server.swap([
      newTool({ name: 'slow', description: 'Quick', execute: () => ({ output: 'new answer' }) }),
    ]);
    release.resolve();
    expect(firstText(await running)).toBe('old answer');
    expect(firstText(await connected.client.callTool({ name: 'slow', arguments: {} }))).toBe(
      'new answer',
    );
  } finally {
    await connected.close();
  }
});

test('a source that cannot be served changes nothing and says why', async () => {
  const server = serve([echo]);
  const connected = await overMemory(server);
  try {
    expect(() => server.swap([added, added])).toThrow(
      'mcp: tool "added": duplicate name; remove the served tool first',
    );
    expect(() => server.swap({ tools: [echo], prompts: [prompt('', 'x')] })).toThrow(
      'prompt[0]: empty name',
    );
    expect(server.tools.map((t) => t.name)).toEqual(['echo']);
    expect(firstText(await connected.client.callTool({ name: 'echo', arguments: {} }))).toBe(
      'echo 1',
    );
  } finally {
    await connected.close();
  }
});

test('changed prompts are announced and served to a connected client', async () => {
  const server = serve([echo], [prompt('review', 'Review it')]);
  const connected = await overMemory(server);
  try {
    const { client } = connected;
    expect(client.getServerCapabilities()?.prompts?.listChanged).toBe(true);
    const noticed = deferred();
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => noticed.resolve());
    const changes = server.swap({
      tools: [echo],
      prompts: [prompt('review', 'Review it'), prompt('summarize', 'Sum it up')],
    });
    expect(changes).toMatchObject({ added: [], promptsChanged: true, resourcesChanged: false });
    await noticed.promise;
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual([
      'review',
      'summarize',
    ]);
    const got = await client.getPrompt({ name: 'summarize', arguments: {} });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'Sum it up' });
  } finally {
    await connected.close();
  }
});

test('a closed server refuses a swap', async () => {
  const server = serve([echo]);
  await server.close();
  expect(() => server.swap([added])).toThrow('mcp: swap: the server is closed');
});
