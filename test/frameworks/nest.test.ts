/**
 * agenttool/nest in a real NestJS 12 app (test/fixtures/frameworks/nest-app.ts), on
 * Express and on Fastify, run by the Node that runs Jest (NestJS 12 is an ES module,
 * which Node loads from our CommonJS and Jest does not), with our client in both
 * protocol eras: discovery of @Tool providers, Nest's injection, request-scoped and
 * transient tools, guards and interceptors around each call, prompts and resources
 * served beside the tools, the Host and Origin checks, and `app.close()` with a session
 * open.
 */
import { join } from 'node:path';
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import {
  buildFrameworkFixtures,
  callRemoteTool as call,
  killFixtures,
  ROOT,
  type RunningFixture,
  startFixture,
} from '../support/frameworks';

beforeAll(() => buildFrameworkFixtures(), 300_000);
afterAll(() => killFixtures());

describe.each(['express', 'fastify'])('a NestJS app on %s', (adapter) => {
  let app: RunningFixture;
  let url: string;
  const open: RemoteTools[] = [];
  const connect = async (
    protocol: 'modern' | 'legacy',
    headers: Record<string, string> = {},
  ): Promise<RemoteTools> => {
    const remote = await connectMcp({ transport: { url, headers }, protocol });
    open.push(remote);
    return remote;
  };

  beforeAll(async () => {
    app = startFixture('nest-app', [adapter], process.execPath);
    url = (await app.waitForStdout(/LISTENING (\S+)\n/))[1]!;
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(open.map((remote) => remote.close()));
    app.process.kill('SIGKILL');
  });

  it('discovers every @Tool provider, built by Nest with its dependencies, for clients of both eras', async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const remote = await connect(protocol);
      expect(remote.era).toBe(protocol);
      expect(remote.tools().map((t) => t.name)).toEqual([
        'greet',
        'whoami',
        'count',
        'secret',
        'shout',
        'clock',
      ]);
      expect(await call(remote, 'greet', { name: 'Ada' })).toBe('Hello, Ada!');
      expect(await call(remote, 'greet', {})).toBe(
        // Served over MCP: the Go server's words (jsonschema-go's, mcpserver/mcp.go).
        'Error: invalid arguments: validating root: required: missing properties: ["name"]',
      );
    }
  });

  it('resolves a request-scoped tool per HTTP request, with the request injected, and a transient one per call', async () => {
    const remote = await connect('modern', { 'x-caller': 'ada' });
    const first = JSON.parse(await call(remote, 'whoami')) as { caller: string; instance: number };
    const second = JSON.parse(await call(remote, 'whoami')) as { caller: string; instance: number };
    expect(first.caller).toBe('ada');
    expect(second.caller).toBe('ada');
    expect(second.instance).toBeGreaterThan(first.instance);
    const counts = [await call(remote, 'count'), await call(remote, 'count')];
    expect(counts[0]).toMatch(/^instance \d+$/);
    expect(counts[1]).not.toBe(counts[0]);
  });

  it("runs a tool's guard around each call, reading the HTTP request as a route's guard does", async () => {
    const stranger = await connect('legacy');
    expect(await call(stranger, 'secret')).toBe('Error: Forbidden resource');
    const friend = await connect('legacy', { 'x-api-key': 'open-sesame' });
    expect(await call(friend, 'secret')).toBe('the secret is 42');
    await printed(app, 'GUARD secret\n');
  });

  it("runs a tool's interceptor around its calls, and global interceptors as context type agenttool", async () => {
    const remote = await connect('modern');
    expect(await call(remote, 'shout', { words: 'hello' })).toBe('HELLO!');
    await printed(app, 'CALL agenttool shout true\n');
    await printed(app, 'CALL agenttool greet true\n');
  });

  it("runs global request-scoped guards and interceptors around every tool's calls, built per request with the request injected", async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const denied = await connect(protocol, { 'x-deny': 'yes' });
      // greet is a singleton, whoami request-scoped: both get the request's guards.
      expect(await call(denied, 'greet', { name: 'Ada' })).toBe('Error: Forbidden resource');
      expect(await call(denied, 'whoami')).toBe('Error: Forbidden resource');
      const allowed = await connect(protocol, { 'x-caller': `grace-${protocol}` });
      expect(await call(allowed, 'greet', { name: 'Ada' })).toBe('Hello, Ada!');
      await printed(app, `SCOPED greet grace-${protocol}\n`);
      expect(JSON.parse(await call(allowed, 'whoami'))).toMatchObject({
        caller: `grace-${protocol}`,
      });
      await printed(app, `SCOPED whoami grace-${protocol}\n`);
    }
  });

  it('serves @Prompt, @McpResource and @McpResourceTemplate providers built by Nest, guarded, to clients of both eras', async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const remote = await connect(protocol, { 'x-caller': `ada-${protocol}` });
      // The hidden prompt's own @Guard refuses everyone: it is not listed.
      expect((await remote.listPrompts()).map((p) => p.name)).toEqual(['greeting']);
      const prompt = await remote.getPrompt('greeting', { name: 'Ada' });
      expect(prompt.messages).toEqual([
        {
          role: 'user',
          content: { type: 'text', text: 'Write to Ada, starting with "Hello, Ada!"' },
        },
      ]);
      await printed(app, 'USE prompt greeting -\n');
      await expect(remote.getPrompt('hidden')).rejects.toThrow();
      expect((await remote.listResources()).map((r) => r.uri)).toEqual([
        'app://caller',
        'app://vault',
        'greeting://Ada',
      ]);
      expect((await remote.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
        'greeting://{name}',
      ]);
      const text = async (uri: string): Promise<unknown> =>
        (await remote.readResource(uri)).contents.map((c) => ('text' in c ? c.text : c.blob));
      // Request-scoped, with the HTTP request injected.
      expect(await text('app://caller')).toEqual([`caller ada-${protocol}`]);
      expect(await text('greeting://Grace')).toEqual(['greeting://Grace: Hello, Grace!']);
      await printed(app, 'USE resource greetings greeting://Grace\n');
      const completed = await remote.complete(
        { type: 'ref/resource', uri: 'greeting://{name}' },
        { name: 'name', value: 'G' },
      );
      expect(completed.completion.values).toEqual(['Grace', 'Gottfried']);
      // A Nest guard written for routes, around the read.
      await expect(text('app://vault')).rejects.toThrow(/Forbidden resource/);
      await printed(app, 'GUARD vault\n');
    }
  });

  it("runs Nest middleware bound to the endpoint's path, and refuses a foreign Origin with 403", async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Invalid Origin header: http://evil.example');
    expect(response.headers.get('x-endpoint-middleware')).toBe('ran');
  });

  it('closes on app.close() with a session open: the session ends, Nest hooks run, the closer is closed once', async () => {
    const remote = await connect('legacy');
    expect(await call(remote, 'clock')).toBe('noon');
    app.process.kill('SIGTERM');
    const ran = await app.done;
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n').filter((line) => /^(HOOK|CLOSE|CLOSED)/.test(line));
    expect(lines).toEqual([
      'HOOK clock onModuleInit',
      'HOOK clock onModuleDestroy',
      'CLOSE clock',
      'HOOK clock onApplicationShutdown',
      'CLOSED',
    ]);
    expect(await call(remote, 'clock')).toMatch(/^Error: /);
  });
});

describe.each(['express', 'fastify'])('on %s', (adapter) => {
  it('fails to start, naming both, when two modules provide one tool', async () => {
    const ran = await startFixture('nest-app', [adapter, 'duplicate'], process.execPath).done;
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      'agenttool/nest: two providers serve the tool "greet": FixtureModule.Greet and SecondGreeterModule.Greet; provide the class in one module',
    );
  }, 60_000);

  it('runs the class of its own module for a request-scoped tool whose token another module provides too', async () => {
    const tokens = startFixture('nest-app', [adapter, 'tokens'], process.execPath);
    const url = (await tokens.waitForStdout(/LISTENING (\S+)\n/))[1]!;
    const remote = await connectMcp({ transport: { url }, protocol: 'modern' });
    try {
      expect(await call(remote, 'handler_a')).toBe('HandlerA ran');
      expect(await call(remote, 'handler_b')).toBe('HandlerB ran');
    } finally {
      await remote.close();
      tokens.process.kill('SIGKILL');
    }
  }, 60_000);

  it("fails to start, saying which option moves it, when a controller routes the endpoint's path or its health route's", async () => {
    const clash = await startFixture('nest-app', [adapter, 'clash'], process.execPath).done;
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(
      'AgentToolError: agenttool/nest: path "/mcp" is already routed by a controller; set the path option to another\n',
    );
    const health = await startFixture('nest-app', [adapter, 'health-clash'], process.execPath).done;
    expect(health.code).toBe(1);
    expect(health.stderr).toContain(
      'AgentToolError: agenttool/nest: path "/healthz" is already routed by a controller; it is the health route; set http.healthPath to another, or to false\n',
    );
  }, 60_000);

  it('serves the protected resource metadata and the health route with the endpoint', async () => {
    const authed = startFixture('nest-app', [adapter, 'auth'], process.execPath);
    try {
      const url = new URL((await authed.waitForStdout(/LISTENING (\S+)\n/))[1]!);
      const refused = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(refused.status).toBe(401);
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(
        refused.headers.get('www-authenticate') ?? '',
      )?.[1];
      expect(metadataUrl).toBe('http://127.0.0.1/.well-known/oauth-protected-resource/mcp');
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({
        resource: 'http://127.0.0.1/mcp',
        authorization_servers: ['https://auth.example.com'],
      });
      const health = await fetch(new URL('/livez', url));
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'serving' });
    } finally {
      authed.process.kill('SIGKILL');
    }
  }, 60_000);

  it('serves the greeter of docs/frameworks.md to clients of both eras and closes', async () => {
    const greeter = startFixture('nest-greeter', [adapter], process.execPath);
    const url = (await greeter.waitForStdout(/LISTENING (\S+)\n/))[1]!;
    for (const protocol of ['modern', 'legacy'] as const) {
      const remote = await connectMcp({ transport: { url }, protocol });
      try {
        expect(await call(remote, 'greet', { name: 'Ada' })).toBe('Hello, Ada!');
        const prompt = await remote.getPrompt('greeting', { name: 'Ada' });
        expect(prompt.messages[0]?.content).toEqual({
          type: 'text',
          text: 'Write to Ada, starting with "Hello, Ada!"',
        });
      } finally {
        await remote.close();
      }
    }
    greeter.process.kill('SIGTERM');
    const ran = await greeter.done;
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('CLOSED\n');
  }, 60_000);
});

/**
 * Waits for the app to print `line`: it writes its log lines around its answers, and a
 * pipe and a socket keep no order between them.
 */
async function printed(app: RunningFixture, line: string): Promise<void> {
  await app.waitForStdout(new RegExp(line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
}

describe('the NestJS greeter of docs/frameworks.md', () => {
  // As in a project that installed Nest for Express only.
  const withoutFastify = {
    NODE_OPTIONS: `--require ${join(ROOT, 'dist/test/fixtures/frameworks/hide-packages.js')}`,
    HIDE_PACKAGES: '@nestjs/platform-fastify',
  };

  it('imports only what it uses: it serves on Express without @nestjs/platform-fastify', async () => {
    const greeter = startFixture('nest-greeter', ['express'], process.execPath, withoutFastify);
    const url = (await greeter.waitForStdout(/LISTENING (\S+)\n/))[1]!;
    const remote = await connectMcp({ transport: { url } });
    try {
      expect(await call(remote, 'greet', { name: 'Ada' })).toBe('Hello, Ada!');
    } finally {
      await remote.close();
      greeter.process.kill('SIGTERM');
    }
    expect((await greeter.done).code).toBe(0);
    // The package is hidden indeed: what needs it cannot start.
    const fastify = await startFixture(
      'nest-greeter',
      ['fastify'],
      process.execPath,
      withoutFastify,
    ).done;
    expect(fastify.code).toBe(1);
    expect(fastify.stderr).toContain(
      "Cannot find package '@nestjs/platform-fastify' (hidden by the test)",
    );
  }, 60_000);
});
