/**
 * agenttool/nest under what a NestJS engineer does with a Nest app
 * (test/fixtures/frameworks/nest-checks.ts, run by the Node that runs Jest: NestJS 12 is
 * an ES module, which Node loads from our CommonJS and Jest does not), on Express and
 * Fastify, with our client in both protocol eras: resolving a request-scoped provider
 * with `ModuleRef.resolve(token, ContextIdFactory.getByRequest(request))` in a tool and
 * in an interceptor, a `ContextIdStrategy` with a payload, a `BadRequestException` with
 * a list of messages, `@UseFilters` and `@UsePipes` on a tool, the caller Nest middleware
 * puts on the request as `req.auth`, a dynamic module with a tool imported twice, and two
 * `AgentToolModule`s in one app.
 */
import { connectMcp, type RemoteTools } from 'agenttool/mcp';
import { INITIALIZE } from '../support/initialize';
import {
  buildFrameworkFixtures,
  callRemoteTool as call,
  killFixtures,
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
    headers: Record<string, string>,
  ): Promise<RemoteTools> => {
    const remote = await connectMcp({ transport: { url, headers }, protocol });
    open.push(remote);
    return remote;
  };

  beforeAll(async () => {
    app = startFixture('nest-checks', [adapter], process.execPath);
    url = (await app.waitForStdout(/LISTENING (\S+)\n/))[1]!;
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(open.map((remote) => remote.close()));
    app.process.kill('SIGKILL');
  });

  it("gives a call's context id to ContextIdFactory.getByRequest, so ModuleRef.resolve finds the call's request-scoped instance", async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const ada = await connect(protocol, { 'x-user': `ada-${protocol}` });
      const grace = await connect(protocol, { 'x-user': `grace-${protocol}` });
      // In parallel: each call resolves its own caller's instance, the one it was given.
      const answers = await Promise.all(
        [ada, grace, ada, grace].map((remote) => call(remote, 'resolve_user')),
      );
      const parsed = answers.map(
        (answer) => JSON.parse(answer) as { user: string; n: number; same: boolean },
      );
      expect(parsed.map(({ user, same }) => ({ user, same }))).toEqual([
        { user: `ada-${protocol}`, same: true },
        { user: `grace-${protocol}`, same: true },
        { user: `ada-${protocol}`, same: true },
        { user: `grace-${protocol}`, same: true },
      ]);
      // The singleton interceptor around the tool resolved the same instance.
      for (const { user, n } of parsed) {
        await app.waitForStdout(new RegExp(`INTERCEPTED ${user} #${n}\\n`));
      }
    }
  });

  it("applies a ContextIdStrategy as a route does: durable providers per tenant, the payload merged into a request-scoped tool's request", async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const acme = await connect(protocol, { 'x-tenant': 'acme' });
      const globex = await connect(protocol, { 'x-tenant': 'globex' });
      const first = JSON.parse(await call(acme, 'tenant')) as { tenant: string; n: number };
      const again = JSON.parse(await call(acme, 'tenant')) as { tenant: string; n: number };
      const other = JSON.parse(await call(globex, 'tenant')) as { tenant: string; n: number };
      expect([first.tenant, again.tenant, other.tenant]).toEqual(['acme', 'acme', 'globex']);
      expect(again.n).toBe(first.n);
      expect(other.n).not.toBe(first.n);
      expect(await call(acme, 'request_tenant')).toBe('acme');
      expect(await call(globex, 'request_tenant')).toBe('globex');
    }
  });

  it("fails a call with every message of a BadRequestException's list, not its title", async () => {
    for (const protocol of ['modern', 'legacy'] as const) {
      const remote = await connect(protocol, {});
      expect(await call(remote, 'sign_up', { name: 'Ada' })).toBe('welcome Ada');
      expect(await call(remote, 'sign_up', { name: ' ' })).toBe(
        'Error: name must not be empty; name must be a real name',
      );
    }
  });

  it('warns at the start of the pipes and filters on a tool, which do not run around its calls', async () => {
    const remote = await connect('modern', {});
    expect(await call(remote, 'lookup')).toBe('Error: connect ECONNREFUSED 10.0.0.7:5432');
    app.process.kill('SIGTERM');
    const ran = await app.done;
    expect(ran.stderr).toContain(
      'AgentToolWarning: agenttool/nest: ChecksModule.Lookup has @UsePipes and @UseFilters, which do not run around its execute calls: only guards and interceptors do',
    );
    expect(ran.stdout).not.toContain('FILTERED');
  });
});

describe.each(['express', 'fastify'])('on %s', (adapter) => {
  it('fails to start when a dynamic module with a tool is imported twice, naming who imports each', async () => {
    const ran = await startFixture('nest-checks', [adapter, 'twice'], process.execPath).done;
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      'AgentToolError: agenttool/nest: two providers serve the tool "feature": FeatureModule.FeatureTool, in two instances of the dynamic module FeatureModule (the one imported by BillingModule, and the one imported by ShippingModule), made by importing it with different options; provide the class in a module imported once (and export it where it is needed), or import FeatureModule once\n',
    );
  }, 60_000);

  it('fails to start, saying so, when two AgentToolModules would serve one health route, not blaming a controller', async () => {
    const ran = await startFixture('nest-checks', [adapter, 'two-servers'], process.execPath).done;
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      'AgentToolError: agenttool/nest: path "/healthz" is already served by another AgentToolModule of this app (its endpoint is "/weather"): AgentToolModule.forRoot is imported more than once with different options; import it once, or give each its own http.healthPath (or false) and the modules it serves with include\n',
    );
    expect(ran.stderr).not.toContain('controller');
  }, 60_000);

  it("takes the caller Nest middleware puts on the request as req.auth: the session is the caller's, @Scopes decide on it", async () => {
    const authed = startFixture('nest-checks', [adapter, 'auth'], process.execPath);
    try {
      const url = (await authed.waitForStdout(/LISTENING (\S+)\n/))[1]!;
      for (const protocol of ['modern', 'legacy'] as const) {
        const as = (token: string) =>
          connectMcp({
            transport: { url, headers: { authorization: `Bearer ${token}` } },
            protocol,
          });
        const [alice, mallory] = await Promise.all([as('alice'), as('mallory')]);
        try {
          expect(alice.tools().map((t) => t.name)).toEqual(['caller', 'orders']);
          expect(mallory.tools().map((t) => t.name)).toEqual(['caller']);
          expect(await call(alice, 'caller')).toBe('alice');
          expect(await call(alice, 'orders')).toBe('two orders');
          expect(await call(mallory, 'caller')).toBe('mallory');
        } finally {
          await Promise.allSettled([alice.close(), mallory.close()]);
        }
      }
      // A 2025-era session is its subject's: another's requests in it are not found.
      const post = (token: string, body: object, session?: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...(session === undefined
              ? {}
              : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
          },
          body: JSON.stringify(body),
        });
      const init = await post('alice', INITIALIZE);
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const taken = await post(
        'mallory',
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'caller', arguments: {} } },
        session,
      );
      expect(taken.status).toBe(404);
      await taken.text();
    } finally {
      authed.process.kill('SIGKILL');
    }
  }, 60_000);

  it('serves two AgentToolModules on their own paths, each with the tools of the modules it includes', async () => {
    const servers = startFixture('nest-checks', [adapter, 'two-servers-apart'], process.execPath);
    try {
      const [, weatherUrl, travelUrl] = await servers.waitForStdout(/SERVERS (\S+) (\S+)\n/);
      for (const protocol of ['modern', 'legacy'] as const) {
        const weather = await connectMcp({ transport: { url: weatherUrl! }, protocol });
        const travel = await connectMcp({ transport: { url: travelUrl! }, protocol });
        try {
          expect(weather.tools().map((t) => t.name)).toEqual(['weather']);
          expect(travel.tools().map((t) => t.name)).toEqual(['travel']);
          expect(await call(weather, 'weather')).toBe('sunny');
          expect(await call(travel, 'travel')).toBe('a trip');
        } finally {
          await Promise.allSettled([weather.close(), travel.close()]);
        }
      }
    } finally {
      servers.process.kill('SIGKILL');
    }
  }, 60_000);
});
