/**
 * A remote server's prompts, resources, resource templates and completions through
 * `connectMcp`, in both protocol eras: the SDK's own `McpServer` in memory for the 2025
 * era and through its fetch face for 2026-07-28, and low-level `Server`s where a test
 * needs what `McpServer` does not do (pages, a looping cursor, `input_required`).
 */
import {
  completable,
  createMcpHandler,
  InMemoryTransport,
  inputRequired,
  McpServer,
  ProtocolError,
  ResourceTemplate,
  Server,
} from '@modelcontextprotocol/server';
import { AgentToolError, createContext } from 'agenttool';
import { type ConnectOptions, connectMcp, type RemoteTools } from 'agenttool/mcp';
import * as z from 'zod';
import { browseServer } from '../../../samples/docs/remote-primitives';

const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);

/** The SDK's own server with a prompt, two resources and a template, each completable. */
function demoServer(): McpServer {
  const mcp = new McpServer(
    { name: 'demo', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true } } },
  );
  mcp.registerPrompt(
    'greet',
    {
      description: 'Greets someone',
      argsSchema: z.object({
        name: completable(z.string(), (value) =>
          ['alice', 'alan', 'bob'].filter((n) => n.startsWith(value)),
        ),
      }),
    },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }],
    }),
  );
  mcp.registerResource('readme', 'mem://readme', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'read me' }],
  }));
  mcp.registerResource('logo', 'mem://logo.png', { mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: LOGO.toString('base64') }],
  }));
  mcp.registerResource(
    'user',
    new ResourceTemplate('mem://users/{id}', {
      list: undefined,
      complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: 'application/json' },
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: JSON.stringify({ id }) }] }),
  );
  // McpServer leaves subscriptions to the app: this one takes any URI.
  mcp.server.setRequestHandler('resources/subscribe', () => ({}));
  mcp.server.setRequestHandler('resources/unsubscribe', () => ({}));
  return mcp;
}

interface Connected {
  readonly remote: RemoteTools;
  stop(): Promise<void>;
}

type ServerFactory = () => McpServer | Server;
type Connect = (
  factory: ServerFactory,
  options?: Omit<ConnectOptions, 'transport'>,
) => Promise<Connected & { readonly server?: McpServer | Server }>;

/** 2025 era: the server on one end of an in-memory pair, our client on the other. */
const legacy: Connect = async (factory, options = {}) => {
  const server = factory();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const remote = await connectMcp({ ...options, transport: clientSide, protocol: 'legacy' });
  return { remote, server, stop: async () => (await remote.close(), await server.close()) };
};

/** 2026-07-28: a server per request behind the SDK's handler, reached through its fetch face. */
const modern: Connect = async (factory, options = {}) => {
  const handler = createMcpHandler(() => factory());
  const remote = await connectMcp({
    ...options,
    transport: {
      url: 'http://demo.test/mcp',
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    },
    protocol: 'modern',
  });
  return { remote, stop: async () => (await remote.close(), await handler.close()) };
};

const eras: [string, Connect][] = [
  ['2025 era', legacy],
  ['2026-07-28', modern],
];

describe.each(eras)('%s: the SDK server prompts, resources and completions', (era, connect) => {
  let connected: Connected;
  beforeAll(async () => {
    connected = await connect(demoServer);
  });
  afterAll(() => connected.stop());

  it('speaks the era it was asked to', () => {
    expect(connected.remote.era).toBe(era === '2025 era' ? 'legacy' : 'modern');
  });

  it('lists and gets a prompt with its arguments', async () => {
    const { remote } = connected;
    const prompts = await remote.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'greet',
        description: 'Greets someone',
        arguments: [expect.objectContaining({ name: 'name', required: true })],
      }),
    ]);
    const prompt = await remote.getPrompt('greet', { name: 'Ada' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Say hello to Ada' } },
    ]);
  });

  it('lists resources and templates, and reads text and binary contents', async () => {
    const { remote } = connected;
    const resources = await remote.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['mem://readme', 'mem://logo.png']);
    const templates = await remote.listResourceTemplates();
    expect(templates).toEqual([
      expect.objectContaining({ name: 'user', uriTemplate: 'mem://users/{id}' }),
    ]);
    const text = await remote.readResource('mem://readme');
    expect(text.contents).toEqual([{ uri: 'mem://readme', text: 'read me' }]);
    const binary = await remote.readResource('mem://logo.png');
    const [blob] = binary.contents;
    expect(blob).toMatchObject({ uri: 'mem://logo.png', mimeType: 'image/png' });
    expect(Buffer.from((blob as { blob: string }).blob, 'base64')).toEqual(LOGO);
    const user = await remote.readResource('mem://users/42');
    expect(user.contents).toEqual([{ uri: 'mem://users/42', text: '{"id":"42"}' }]);
  });

  it('completes a prompt argument and a template variable', async () => {
    const { remote } = connected;
    const names = await remote.complete(
      { type: 'ref/prompt', name: 'greet' },
      { name: 'name', value: 'al' },
    );
    expect(names.completion.values).toEqual(['alice', 'alan']);
    const ids = await remote.complete(
      { type: 'ref/resource', uri: 'mem://users/{id}' },
      { name: 'id', value: '1' },
      { arguments: {} },
    );
    expect(ids.completion.values).toEqual(['1', '10']);
  });

  it('fails to read an unknown resource naming the server, the method and the URI', async () => {
    const failure = connected.remote.readResource('mem://missing');
    await expect(failure).rejects.toThrow(
      /^mcp: resources\/read "mem:\/\/missing" on server "demo": .*mem:\/\/missing/,
    );
    const error = (await failure.catch((e: unknown) => e)) as { code: string; cause: unknown };
    // The SDK's server answers -32602 in both eras (2026-07-28's code for it).
    expect(error.code).toBe('PROTOCOL');
    expect(error.cause).toMatchObject({ code: -32602 });
  });

  it('fails to get an unknown prompt naming it', async () => {
    await expect(connected.remote.getPrompt('nope')).rejects.toThrow(
      /^mcp: prompts\/get "nope" on server "demo": /,
    );
  });

  it('ends a request its signal aborted, as context canceled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      connected.remote.readResource('mem://readme', { signal: controller.signal }),
    ).rejects.toThrow('mcp: resources/read "mem://readme" on server "demo": context canceled');
  });
});

describe('2025 era: resource subscriptions', () => {
  it('tells onResourceUpdated of each change to a subscribed resource, until unsubscribed', async () => {
    const updated: string[] = [];
    let announce: ((uri: string) => void) | undefined;
    const { remote, server, stop } = await legacy(demoServer, {
      onResourceUpdated: (uri) => {
        updated.push(uri);
        announce?.(uri);
      },
    });
    try {
      const sdk = (server as McpServer).server;
      const subscribed: string[] = [];
      sdk.setRequestHandler('resources/subscribe', (request) => {
        subscribed.push(request.params.uri);
        return {};
      });
      sdk.setRequestHandler('resources/unsubscribe', (request) => {
        subscribed.splice(subscribed.indexOf(request.params.uri), 1);
        return {};
      });
      await remote.subscribeResource('mem://readme');
      expect(subscribed).toEqual(['mem://readme']);
      const seen = new Promise<string>((resolve) => (announce = resolve));
      await sdk.sendResourceUpdated({ uri: 'mem://readme' });
      await expect(seen).resolves.toBe('mem://readme');
      expect(updated).toEqual(['mem://readme']);
      await remote.unsubscribeResource('mem://readme');
      expect(subscribed).toEqual([]);
    } finally {
      await stop();
    }
  });

  it("reads a 2025 server's -32002 for an unknown resource as a failure naming it", async () => {
    const older = (): Server => {
      const server = new Server(
        { name: 'older', version: '1' },
        { capabilities: { resources: {} } },
      );
      server.setRequestHandler('resources/read', (request) => {
        throw new ProtocolError(-32002, 'Resource not found', { uri: request.params.uri });
      });
      return server;
    };
    const { remote, stop } = await legacy(older);
    try {
      const failure = remote.readResource('file:///nope');
      await expect(failure).rejects.toThrow(
        'mcp: resources/read "file:///nope" on server "older": Resource not found',
      );
      // The SDK reads 2025's -32002 as its ResourceNotFoundError, whose code is 2026-07-28's -32602.
      const error = (await failure.catch((e: unknown) => e)) as { code: string; cause: unknown };
      expect(error.code).toBe('PROTOCOL');
      expect(error.cause).toMatchObject({ message: 'Resource not found', code: -32602 });
    } finally {
      await stop();
    }
  });

  it('refuses to subscribe where the server offers no subscriptions', async () => {
    const plain = (): McpServer => {
      const mcp = new McpServer({ name: 'plain', version: '1' });
      mcp.registerResource('readme', 'mem://readme', {}, (uri) => ({
        contents: [{ uri: uri.href, text: 'x' }],
      }));
      return mcp;
    };
    const { remote, stop } = await legacy(plain);
    try {
      await expect(remote.subscribeResource('mem://readme')).rejects.toThrow(
        'mcp: resources/subscribe "mem://readme" on server "plain": the server does not offer resource subscriptions',
      );
    } finally {
      await stop();
    }
  });
});

/** A low-level server whose lists come in pages of two, cursors `p1`, `p2`, ... */
function pagedServer(pages: number, loop = false): Server {
  const server = new Server(
    { name: 'paged', version: '1' },
    { capabilities: { prompts: {}, resources: {} } },
  );
  const page = <T>(cursor: string | undefined, make: (i: number) => T) => {
    const at = cursor === undefined ? 0 : Number(cursor.slice(1));
    const items = [make(at * 2), make(at * 2 + 1)];
    const next = loop ? 'p1' : at + 1 < pages ? `p${at + 1}` : undefined;
    return next === undefined ? { items } : { items, nextCursor: next };
  };
  server.setRequestHandler('prompts/list', (request) => {
    const { items, nextCursor } = page(request.params?.cursor, (i) => ({ name: `prompt-${i}` }));
    return { prompts: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler('resources/list', (request) => {
    const { items, nextCursor } = page(request.params?.cursor, (i) => ({
      uri: `mem://r/${i}`,
      name: `r${i}`,
    }));
    return { resources: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  server.setRequestHandler('resources/templates/list', (request) => {
    const { items, nextCursor } = page(request.params?.cursor, (i) => ({
      uriTemplate: `mem://t${i}/{x}`,
      name: `t${i}`,
    }));
    return { resourceTemplates: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
  });
  return server;
}

describe.each(eras)('%s: pages', (_era, connect) => {
  it('follows every list to its last page', async () => {
    const { remote, stop } = await connect(() => pagedServer(3));
    try {
      expect((await remote.listPrompts()).map((p) => p.name)).toEqual([
        'prompt-0',
        'prompt-1',
        'prompt-2',
        'prompt-3',
        'prompt-4',
        'prompt-5',
      ]);
      expect(await remote.listResources()).toHaveLength(6);
      expect((await remote.listResourceTemplates()).map((t) => t.name)).toEqual([
        't0',
        't1',
        't2',
        't3',
        't4',
        't5',
      ]);
    } finally {
      await stop();
    }
  });

  it('fails a listing whose server repeats a cursor, rather than page forever', async () => {
    const { remote, stop } = await connect(() => pagedServer(3, true));
    try {
      await expect(remote.listResources()).rejects.toThrow(
        'mcp: resources/list on server "paged": the server repeated the cursor "p1" after 2 pages (it would page forever)',
      );
    } finally {
      await stop();
    }
  });

  it("fails a listing whose answer has the wrong shape as the server's fault, not the connection's", async () => {
    const { remote, stop } = await connect(() => {
      const server = new Server({ name: 'odd', version: '1' }, { capabilities: { prompts: {} } });
      server.setRequestHandler('prompts/list', () => ({ prompts: 'none' }) as never);
      return server;
    });
    try {
      const failure = await remote.listPrompts().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentToolError);
      expect(failure).toMatchObject({ code: 'PROTOCOL' });
      expect((failure as Error).message).toMatch(
        /^mcp: prompts\/list on server "odd": the server's answer does not read as one: Invalid result for prompts\/list: /,
      );
      // The connection goes on.
      expect(await remote.listResources()).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('fails a listing past 100,000 items, one page of 200,000 included, naming the server and the kind', async () => {
    const { remote, stop } = await connect(() => {
      const server = new Server({ name: 'wide', version: '1' }, { capabilities: { prompts: {} } });
      // One page, once spread as arguments: "Maximum call stack size exceeded".
      const prompts = Array.from({ length: 200_000 }, (_, i) => ({ name: `p${i}` }));
      server.setRequestHandler('prompts/list', () => ({ prompts }));
      return server;
    });
    try {
      const failure = await remote.listPrompts().catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 'PROTOCOL',
        message:
          'mcp: prompts/list on server "wide": the server listed more than 100000 prompts, the most one listing takes',
      });
    } finally {
      await stop();
    }
  });

  it('fails a listing past 16 MiB of items over pages each within the message bound', async () => {
    let pages = 0;
    const { remote, stop } = await connect(() => {
      const server = new Server({ name: 'big', version: '1' }, { capabilities: { resources: {} } });
      // 1 MiB a page, pages without end: the bound is met on the 17th.
      const description = 'x'.repeat(1024 * 1024);
      server.setRequestHandler('resources/list', (request) => {
        const at = Number(request.params?.cursor ?? '0');
        pages = Math.max(pages, at + 1);
        return {
          resources: [{ uri: `mem://r/${at}`, name: `r${at}`, description }],
          nextCursor: String(at + 1),
        };
      });
      return server;
    });
    try {
      const failure = await remote.listResources().catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 'PROTOCOL',
        message:
          'mcp: resources/list on server "big": the server listed more than 16777216 bytes of resources, the most one listing takes',
      });
      expect(pages).toBe(16);
      // The connection goes on.
      expect(await remote.listPrompts()).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('lists no prompts of a server that offers none', async () => {
    const { remote, stop } = await connect(
      () => new Server({ name: 'bare', version: '1' }, { capabilities: {} }),
    );
    try {
      expect(await remote.listPrompts()).toEqual([]);
      expect(await remote.listResources()).toEqual([]);
    } finally {
      await stop();
    }
  });
});

/** A 2026-07-28 server whose prompt and resource first ask who is asking. */
function askingServer(received: Record<string, unknown>[]): Server {
  const server = new Server(
    { name: 'asking', version: '1' },
    { capabilities: { prompts: {}, resources: {} } },
  );
  const question = inputRequired.elicit({
    message: 'Who is asking?',
    requestedSchema: { type: 'object', properties: { who: { type: 'string' } } },
  });
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const answers = ctx.mcpReq.inputResponses;
    received.push({ name: request.params.name, answers, state: ctx.mcpReq.requestState() });
    if (answers === undefined) {
      return inputRequired({ inputRequests: { who: question }, requestState: 'prompt-1' });
    }
    return {
      messages: [
        { role: 'user', content: { type: 'text', text: `for ${JSON.stringify(answers.who)}` } },
      ],
    };
  });
  server.setRequestHandler('resources/read', (request, ctx) => {
    const answers = ctx.mcpReq.inputResponses;
    if (answers === undefined) {
      return inputRequired({ inputRequests: { who: question }, requestState: 'read-1' });
    }
    return { contents: [{ uri: request.params.uri, text: JSON.stringify(answers.who) }] };
  });
  return server;
}

describe('2026-07-28: a prompt or a resource the server needs input for', () => {
  it("puts the question to the context's elicitor and retries with the answer and the state", async () => {
    const received: Record<string, unknown>[] = [];
    const { remote, stop } = await modern(() => askingServer(received), { elicitation: true });
    try {
      const asked: string[] = [];
      const context = createContext({
        elicitor: (question) => {
          asked.push(question.message);
          return { action: 'accept', content: { who: 'Ada' } };
        },
      });
      const prompt = await remote.getPrompt('report', { month: 'May' }, { context });
      expect(asked).toEqual(['Who is asking?']);
      expect(prompt.messages[0]?.content).toEqual({
        type: 'text',
        text: 'for {"action":"accept","content":{"who":"Ada"}}',
      });
      expect(received).toEqual([
        { name: 'report', answers: undefined, state: undefined },
        {
          name: 'report',
          answers: { who: { action: 'accept', content: { who: 'Ada' } } },
          state: 'prompt-1',
        },
      ]);
      const read = await remote.readResource('mem://secret', { context });
      expect(read.contents).toEqual([
        { uri: 'mem://secret', text: '{"action":"accept","content":{"who":"Ada"}}' },
      ]);
    } finally {
      await stop();
    }
  });

  it('puts it to the connection elicitationHandler, which wins over a context', async () => {
    const { remote, stop } = await modern(() => askingServer([]), {
      elicitationHandler: () => ({ action: 'decline' }),
    });
    try {
      const read = await remote.readResource('mem://secret');
      expect(read.contents).toEqual([{ uri: 'mem://secret', text: '{"action":"decline"}' }]);
    } finally {
      await stop();
    }
  });

  it('answers cancel without a context, and fails when the client declares no elicitation', async () => {
    const answered = await modern(() => askingServer([]), { elicitation: true });
    try {
      const read = await answered.remote.readResource('mem://secret');
      expect(read.contents).toEqual([{ uri: 'mem://secret', text: '{"action":"cancel"}' }]);
    } finally {
      await answered.stop();
    }
    const refused = await modern(() => askingServer([]));
    try {
      // The SDK's server will not ask a client for what it did not declare (-32021).
      await expect(refused.remote.getPrompt('report')).rejects.toThrow(
        'mcp: prompts/get "report" on server "asking": the server needs a client capability this connection does not declare, {"elicitation":{"form":{}}}',
      );
    } finally {
      await refused.stop();
    }
  });
});

describe('docs/client.md: browsing a server', () => {
  it('completes, gets and reads what the SDK server offers', async () => {
    const handler = createMcpHandler(() => demoServer());
    try {
      const lines = await browseServer({
        url: 'http://demo.test/mcp',
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      });
      expect(lines).toEqual([
        'prompt greet: Say hello to alice',
        'mem://readme: read me',
        'mem://logo.png: 12 base64 chars',
        'template mem://users/{id}',
      ]);
    } finally {
      await handler.close();
    }
  });
});
