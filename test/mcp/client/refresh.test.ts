import { createContext, type Tool } from 'agenttool';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { deferred, RawServer, type RawServerOptions } from './raw-server';

const tool = (name: string, annotations?: Record<string, unknown>): Record<string, unknown> => ({
  name,
  inputSchema: { type: 'object' },
  ...(annotations !== undefined ? { annotations } : {}),
});
const CHANGED = 'notifications/tools/list_changed';

async function connect(
  options: RawServerOptions,
  extra: Omit<Parameters<typeof connectMcp>[0], 'transport'> = {},
): Promise<{ server: RawServer; remote: RemoteTools }> {
  const server = await new RawServer(options).start();
  const remote = await connectMcp({ transport: server.clientTransport, ...extra });
  return { server, remote };
}

const names = (remote: RemoteTools): string[] => remote.tools().map((t) => t.name);

function run(remote: RemoteTools, name: string): Promise<unknown> {
  const t = remote.tools().find((x) => x.name === name) as Tool;
  return Promise.resolve(t.execute({ id: 'c', args: '{}' }, createContext()));
}

describe('tool-list changes', () => {
  it('refreshes in the background on list_changed; settled() waits for it', async () => {
    const { server, remote } = await connect({ tools: [tool('a'), tool('b')] });
    expect(names(remote)).toEqual(['a', 'b']);
    server.tools = [tool('b'), tool('c')];
    await server.notify(CHANGED);
    await server.ping();
    await remote.settled();
    expect(names(remote)).toEqual(['b', 'c']);
    await remote.close();
  });

  it('coalesces notifications that arrive while a listing runs, and settled() waits for the held listing', async () => {
    let hold: ReturnType<typeof deferred<void>> | undefined;
    let listings = 0;
    const state = { tools: [tool('a')] as unknown[] };
    const { server, remote } = await connect({
      list: async () => {
        listings++;
        const snapshot = state.tools;
        if (hold !== undefined) await hold.promise;
        return { tools: snapshot };
      },
    });
    expect(listings).toBe(1);
    hold = deferred();
    state.tools = [tool('x')];
    await server.notify(CHANGED);
    await server.waitFor(() => listings === 2 || server.count('tools/list') === 2);
    state.tools = [tool('y')];
    await server.notify(CHANGED);
    await server.notify(CHANGED);
    await server.ping();
    let settled = false;
    const waiting = remote.settled().then(() => (settled = true));
    await server.ping();
    expect(settled).toBe(false);
    const release = hold;
    hold = undefined;
    release.resolve();
    await waiting;
    expect(names(remote)).toEqual(['y']);
    expect(listings).toBe(3); // the held listing and one for both later notifications
    await remote.close();
  });

  it('keeps the old snapshot when a refresh fails, reports it, and settled() throws until one succeeds', async () => {
    let fail = false;
    const errors: Error[] = [];
    const { server, remote } = await connect(
      {
        list: () => {
          if (fail) throw new Error('listing broke');
          return { tools: [tool(fail ? 'never' : 'fresh')] };
        },
      },
      { onRefreshError: (e) => errors.push(e) },
    );
    fail = true;
    await server.notify(CHANGED);
    await server.ping();
    await expect(remote.settled()).rejects.toThrow(/^mcp: list tools: .*listing broke/);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/listing broke/)]);
    expect(names(remote)).toEqual(['fresh']);
    await expect(remote.settled()).rejects.toThrow(/listing broke/);
    await expect(remote.refresh()).rejects.toThrow(/listing broke/);
    fail = false;
    await remote.refresh();
    await expect(remote.settled()).resolves.toBeUndefined();
    await remote.close();
  });

  it('a reporter that throws neither stops later refreshes nor leaves an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    let fail = false;
    let listed = [tool('t')];
    const reported: string[] = [];
    const { server, remote } = await connect(
      {
        list: () => {
          if (fail) throw new Error('listing broke');
          return { tools: listed };
        },
      },
      {
        onRefreshError: (e) => {
          reported.push(e.message);
          throw new Error('reporter broke');
        },
      },
    );
    try {
      fail = true;
      await server.notify(CHANGED);
      await server.ping();
      await expect(remote.settled()).rejects.toThrow(/^mcp: list tools: .*listing broke/);
      // Unhandled rejections are told after the microtask queue drains.
      await new Promise((resolve) => setImmediate(resolve));
      expect(reported).toEqual([expect.stringMatching(/listing broke/)]);
      expect(unhandled).toEqual([]);
      fail = false;
      listed = [tool('t'), tool('u')];
      await expect(remote.refresh()).resolves.toBeUndefined();
      expect(names(remote)).toEqual(['t', 'u']);
      listed = [tool('v')];
      await server.notify(CHANGED);
      await server.ping();
      await expect(remote.settled()).resolves.toBeUndefined();
      expect(names(remote)).toEqual(['v']);
      // A call during which the list changes returns once the refresh is in.
      listed = [tool('v'), tool('w')];
      const calling = server.waitFor((m) => (m as { method?: string }).method === 'tools/call');
      const result = run(remote, 'v');
      await calling;
      await server.notify(CHANGED);
      await result;
      expect(names(remote)).toEqual(['v', 'w']);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await remote.close();
    }
  });

  it('refuses an onRefreshError that is not a function', async () => {
    const server = await new RawServer({ tools: [tool('t')] }).start();
    await expect(
      connectMcp({ transport: server.clientTransport, onRefreshError: 'log' as never }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'mcp: connect: onRefreshError must be a function',
    });
    expect(server.received).toEqual([]);
  });

  it('a call during which the list changed returns only after the refresh', async () => {
    const { server, remote } = await connect({
      tools: [tool('adder')],
      call: async () => {
        server.tools = [tool('adder'), tool('added')];
        await server.notify(CHANGED);
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    });
    await run(remote, 'adder');
    expect(names(remote)).toEqual(['adder', 'added']);
    await remote.close();
  });

  describe('notification grace', () => {
    // The server announces the change only after it has answered the call.
    let announced = deferred();
    const lateAnnouncer =
      (server: () => RawServer): RawServerOptions['call'] =>
      () => {
        announced = deferred();
        setImmediate(() => {
          server().tools = [tool('w'), tool('r', { readOnlyHint: true }), tool('late')];
          void server()
            .notify(CHANGED)
            .catch(() => undefined)
            .then(() => announced.resolve());
        });
        return { content: [] };
      };

    async function setup(grace: number): Promise<{ server: RawServer; remote: RemoteTools }> {
      const box: { server?: RawServer } = {};
      const result = await connect(
        {
          tools: [tool('w'), tool('r', { readOnlyHint: true })],
          call: lateAnnouncer(() => box.server as RawServer),
        },
        { notificationGrace: grace },
      );
      box.server = result.server;
      return result;
    }

    it('waits for a change announced just after the call returned', async () => {
      const { remote } = await setup(60_000);
      await run(remote, 'w');
      expect(names(remote)).toContain('late');
      await remote.close();
    });

    it('does not wait when the grace is 0', async () => {
      const { server, remote } = await setup(0);
      await run(remote, 'w');
      expect(names(remote)).not.toContain('late');
      await announced.promise;
      await server.ping();
      await remote.settled();
      expect(names(remote)).toContain('late');
      await remote.close();
    });

    it('does not wait after a read-only tool', async () => {
      const { server, remote } = await setup(60_000);
      await run(remote, 'r');
      expect(names(remote)).not.toContain('late');
      await announced.promise;
      await server.ping();
      await remote.settled();
      expect(names(remote)).toContain('late');
      await remote.close();
    });

    it('does not wait when the server does not announce list changes', async () => {
      // The server says it sends no list_changed, then sends one just after the call:
      // a client that waited anyway would see 'late' when the call returns.
      const box: { server?: RawServer } = {};
      const server = await new RawServer({
        tools: [tool('w'), tool('r', { readOnlyHint: true })],
        capabilities: { tools: {} },
        call: lateAnnouncer(() => box.server as RawServer),
      }).start();
      box.server = server;
      const remote = await connectMcp({
        transport: server.clientTransport,
        notificationGrace: 60_000,
      });
      await run(remote, 'w');
      expect(names(remote)).not.toContain('late');
      await announced.promise;
      await server.ping();
      await remote.settled();
      expect(names(remote)).toContain('late');
      await remote.close();
    });
  });
});

describe('a server that stops answering its lists', () => {
  it('fails the connect once the callTimeout has passed, saying the listing timed out', async () => {
    const server = await new RawServer({ list: () => new Promise(() => undefined) }).start();
    await expect(
      connectMcp({ transport: server.clientTransport, callTimeout: 100 }),
    ).rejects.toThrow(/^mcp: list tools: .*timed out/i);
  });

  it("returns a call's result once the list it changed has timed out, keeping the old list", async () => {
    let answering = true;
    const { server, remote } = await connect(
      {
        tools: [tool('change')],
        list: () => (answering ? { tools: [tool('change')] } : new Promise(() => undefined)),
        call: async ({ notify }) => {
          answering = false;
          await notify(CHANGED, {});
          return { content: [{ type: 'text', text: 'changed' }] };
        },
      },
      { callTimeout: 100 },
    );
    try {
      await expect(run(remote, 'change')).resolves.toMatchObject({ output: 'changed' });
      expect(names(remote)).toEqual(['change']);
      expect(server.count('tools/list')).toBe(2);
    } finally {
      await remote.close();
    }
  });
});
