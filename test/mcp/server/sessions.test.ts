import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { newTool, type Session, type ToolContext, ToolSet } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { type Connect, deferred, firstText, overHttp, overMemory } from './helpers';

function sessionTool(seen: Session[]) {
  return newTool({
    name: 'whoami',
    description: 'Reports the session it runs in',
    execute: (_call, ctx) => {
      if (ctx.session !== undefined) seen.push(ctx.session);
      return { output: JSON.stringify({ id: ctx.session?.id, client: ctx.session?.client }) };
    },
  });
}

describe.each<[string, Connect]>([
  ['in-memory', overMemory],
  ['Streamable HTTP', overHttp],
])('sessions over %s', (transport, connect) => {
  test('each client gets one session object for its life, with its client info', async () => {
    const seen: Session[] = [];
    const server = serveTools([sessionTool(seen)]);
    const a = await connect(server, undefined, 'client-a');
    const b = await connect(server, undefined, 'client-b');
    try {
      const first = JSON.parse(firstText(await a.client.callTool({ name: 'whoami' })));
      await a.client.callTool({ name: 'whoami' });
      const second = JSON.parse(firstText(await b.client.callTool({ name: 'whoami' })));
      expect(seen).toHaveLength(3);
      expect(seen[0]).toBe(seen[1]);
      expect(seen[2]).not.toBe(seen[0]);
      expect(first.client).toEqual({ name: 'client-a', version: '1.2.3' });
      expect(second.client).toEqual({ name: 'client-b', version: '1.2.3' });
      if (transport === 'in-memory') {
        expect([first.id, second.id]).toEqual(['', '']);
      } else {
        expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(second.id).not.toBe(first.id);
      }
      expect(server.sessions).toHaveLength(2);
    } finally {
      await a.close();
      await b.close();
      await server.close();
    }
  });

  test('onSession runs once per session and its onClose listeners run when the client leaves', async () => {
    const opened: Session[] = [];
    const closed = deferred<Session>();
    const app = {
      tools: [sessionTool([])],
      onSession(session: Session) {
        opened.push(session);
        session.onClose(() => closed.resolve(session));
      },
    };
    const server = serveTools(app);
    const connected = await connect(server);
    await connected.client.callTool({ name: 'whoami' });
    expect(opened).toHaveLength(1);
    await connected.close();
    expect(await closed.promise).toBe(opened[0]);
    expect(server.sessions).toHaveLength(0);
    await server.close();
  });

  test('cancelling a request aborts the call signal', async () => {
    const started = deferred();
    const aborted = deferred<string>();
    const server = serveTools(
      newTool({
        name: 'wait',
        description: 'Waits until cancelled',
        execute: (_call, ctx: ToolContext) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted.resolve(String(ctx.signal.reason));
              reject(new Error('stopped'));
            });
            started.resolve();
          }),
      }),
    );
    const connected = await connect(server);
    try {
      const controller = new AbortController();
      const call = connected.client.callTool({ name: 'wait' }, undefined, {
        signal: controller.signal,
      });
      await started.promise;
      controller.abort('user pressed Esc');
      await expect(call).rejects.toThrow();
      expect(await aborted.promise).toContain('user pressed Esc');
    } finally {
      await connected.close();
      await server.close();
    }
  });
});

test('server.close() ends every session, running its onClose listeners', async () => {
  const ended: string[] = [];
  const server = serveTools(new ToolSet([sessionTool([])]), {
    onSession: (session) =>
      session.onClose(async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        ended.push('closed');
      }),
  });
  const a = await overMemory(server);
  const b = await overHttp(server);
  await a.client.callTool({ name: 'whoami' });
  await b.client.callTool({ name: 'whoami' });
  await server.close();
  expect(ended).toEqual(['closed', 'closed']);
  await a.close();
  await b.close();
});

test('a listener registered on an ended session runs at once', async () => {
  const seen: Session[] = [];
  const server = serveTools([sessionTool(seen)]);
  const connected = await overMemory(server);
  await connected.client.callTool({ name: 'whoami' });
  await connected.close();
  await server.close();
  expect(seen).toHaveLength(1);
  let ran = 0;
  seen[0]?.onClose(() => {
    ran += 1;
  });
  // At once: before onClose returns, not on some later turn.
  expect(ran).toBe(1);
});

describe('tools/list_changed', () => {
  test('is sent when tools are added or removed at run time, and the list follows', async () => {
    const server = serveTools([sessionTool([])]);
    const connected = await overMemory(server);
    const notified: number[] = [];
    let next = deferred();
    connected.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified.push(1);
      next.resolve();
    });
    try {
      server.addTools(
        newTool({ name: 'extra', description: 'Added later', execute: () => ({ output: 'x' }) }),
      );
      await next.promise;
      expect((await connected.client.listTools()).tools.map((t) => t.name)).toEqual([
        'whoami',
        'extra',
      ]);
      next = deferred();
      expect(server.removeTools('extra', 'never-served')).toBe(1);
      await next.promise;
      expect((await connected.client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      const gone = await connected.client.callTool({ name: 'extra' });
      expect(firstText(gone)).toBe('unknown tool "extra"');
      expect(notified).toHaveLength(2);
    } finally {
      await connected.close();
      await server.close();
    }
  });

  test('adding nothing valid changes nothing: errors name the tool and say why', () => {
    const server = serveTools([sessionTool([])]);
    const ok = newTool({ name: 'ok', description: 'fine', execute: () => ({ output: '' }) });
    expect(() =>
      server.addTools(
        ok,
        newTool({ name: 'bad', parameters: { type: 5 }, execute: () => ({ output: '' }) }),
      ),
    ).toThrow(
      'mcpserver: tool "bad": schema: schema is invalid: data/type must be equal to one of the allowed values',
    );
    expect(() =>
      server.addTools(
        newTool({
          name: 'dialect',
          parameters: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
          execute: () => ({ output: '' }),
        }),
      ),
    ).toThrow(
      'mcpserver: tool "dialect": schema: unsupported $schema "https://json-schema.org/draft/2019-09/schema": the validator handles draft-07 and 2020-12',
    );
    expect(() =>
      server.addTools(
        newTool({ name: 'ref', parameters: { $ref: '#/nope' }, execute: () => ({ output: '' }) }),
      ),
    ).toThrow(/mcpserver: tool "ref": schema: can't resolve reference #\/nope/);
    expect(() => server.addTools(ok, ok)).toThrow('mcp: tool "ok": duplicate name');
    expect(() => server.addTools(sessionTool([]))).toThrow('mcp: tool "whoami": duplicate name');
    expect(server.tools.map((t) => t.name)).toEqual(['whoami']);
  });
});

test('arguments outside the contract subset are validated with the general validator', async () => {
  const server = serveTools(
    newTool({
      name: 'address',
      description: 'Uses $ref',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { city: { type: 'string' } } } },
        properties: { address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
      execute: () => ({ output: 'ok' }),
    }),
  );
  const connected = await overMemory(server);
  try {
    const bad = await connected.client.callTool({
      name: 'address',
      arguments: { address: { city: 7 } },
    });
    expect(bad.isError).toBe(true);
    // jsonschema-go's words (mcpserver/mcp.go validates with google/jsonschema-go).
    expect(firstText(bad)).toBe(
      'invalid arguments: validating root: validating /properties/address: validating /$defs/address: validating /$defs/address/properties/city: type: 7 has type "integer", want "string"',
    );
    const good = await connected.client.callTool({
      name: 'address',
      arguments: { address: { city: 'Oslo' } },
    });
    expect(firstText(good)).toBe('ok');
    const listed = await connected.client.listTools();
    expect(listed.tools[0]?.inputSchema).toHaveProperty('$defs');
  } finally {
    await connected.close();
    await server.close();
  }
});
