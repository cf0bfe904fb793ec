/**
 * Authorization across instances: two `agenttool serve --http --redis` instances that
 * require bearer tokens of one issuer for one public URL (as behind a load balancer),
 * with 2026-07-28 requests that reach the instance not holding their call or session
 * and are forwarded to the one that does. The owner checks the caller again: a caller's
 * token travels with the forwarded request, another caller cannot answer or join what
 * is not theirs, and the forwarding mark opens no door.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SESSION_META_KEY, SESSIONS_EXTENSION } from 'agenttool/mcp';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../fixtures/oauth/jwt-authorization-server';
import { ensureBuilt, FIXTURES } from '../cli/helpers';
import {
  type Instance,
  rawCall,
  routedFetch,
  startInstance,
  startRedis,
  stopAll,
  textOf,
} from './cluster';

const SCALE_APP = join(FIXTURES, 'scale-app.module.js');
/** The URL clients know the service by; tokens name it as their audience. */
const PUBLIC_URL = 'https://tools.example.test/mcp';

let issuer: JwtAuthorizationServer;
let a: Instance;
let b: Instance;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  ensureBuilt();
  const redis = await startRedis();
  issuer = await startJwtAuthorizationServer({});
  const auth = [
    '--auth-issuer',
    issuer.issuer,
    '--auth-jwks',
    issuer.jwksUrl,
    '--auth-audience',
    PUBLIC_URL,
  ];
  [a, b] = await Promise.all([
    startInstance(SCALE_APP, 'a', redis.url, auth),
    startInstance(SCALE_APP, 'b', redis.url, auth),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()));
  await issuer?.close();
  stopAll();
});

const tokenOf = (subject: string): string =>
  issuer.mint({ sub: subject, aud: PUBLIC_URL, scope: 'tools' });

/** An SDK client speaking 2026-07-28 as `subject`, its calls sent in turn to `targets`. */
async function clientOf(subject: string, targets: readonly string[]): Promise<Client> {
  const client = new Client(
    { name: subject, version: '1' },
    {
      capabilities: { elicitation: { form: {} }, extensions: { [SESSIONS_EXTENSION]: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(targets[0]!), {
      fetch: routedFetch(targets),
      requestInit: { headers: { authorization: `Bearer ${tokenOf(subject)}` } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

const ANSWERS = { elicit_1: { action: 'accept', content: { color: 'blue' } } };

describe('instances behind one public URL, requiring bearer tokens', () => {
  test("a caller's answers reach the instance running the call with the caller's token; another caller's are refused there", async () => {
    // Ada's question is asked on a; every later request goes to b, which forwards it.
    const ada = await clientOf('ada', [a.url, b.url]);
    const first = await rawCall(ada, { name: 'ask', arguments: {} });
    expect(first.resultType).toBe('input_required');
    const state = first.requestState as string;

    // Bob holds Ada's state (it leaked): b forwards his answers to a, which refuses them.
    const bob = await clientOf('bob', [b.url]);
    const stolen = rawCall(bob, {
      name: 'ask',
      arguments: {},
      inputResponses: ANSWERS,
      requestState: state,
    });
    await expect(stolen).rejects.toMatchObject({
      code: -32602,
      message:
        'Invalid requestState: it was issued to another caller; call the tool again without it',
    });

    // Ada's own answers, through b, still reach her call on a.
    const answered = await rawCall(ada, {
      name: 'ask',
      arguments: {},
      inputResponses: ANSWERS,
      requestState: state,
    });
    expect(textOf(answered)).toBe('accept blue on a');
  });

  test("a session is its opener's on every instance: another caller with its handle gets a session of their own", async () => {
    const ada = await clientOf('ada', [a.url, b.url]);
    const first = await rawCall(ada, { name: 'visits', arguments: {} });
    const handle = (first._meta as Record<string, unknown>)[SESSION_META_KEY] as string;
    expect(handle).toMatch(/^a\./);
    expect(textOf(first)).toBe('visit 1 on a');

    // Bob sends Ada's handle to b: forwarded to a, where the session is not his.
    const bob = await clientOf('bob', [b.url]);
    const intruding = await rawCall(bob, {
      name: 'visits',
      arguments: {},
      _meta: { [SESSION_META_KEY]: handle },
    });
    expect(textOf(intruding)).toBe('visit 1 on a');
    expect((intruding._meta as Record<string, unknown>)[SESSION_META_KEY]).not.toBe(handle);

    // Ada's session, reached through b, is untouched by him.
    const again = await rawCall(ada, {
      name: 'visits',
      arguments: {},
      _meta: { [SESSION_META_KEY]: handle },
    });
    expect(textOf(again)).toBe('visit 2 on a');
  });

  test('a request without a valid token is refused by the instance it reaches, forwarding mark or not', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {},
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    for (const extra of [
      {},
      // As if another instance had forwarded it: the mark is no credential.
      { 'x-agenttool-forwarded-by': 'b' },
      { 'x-agenttool-forwarded-by': 'b', authorization: `Bearer ${tokenOf('ada')}x` },
    ]) {
      const refused = await fetch(a.url, {
        method: 'POST',
        headers: { ...headers, ...extra },
        body,
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    // A token for another audience is refused as well.
    const elsewhere = issuer.mint({ sub: 'ada', aud: a.url, scope: 'tools' });
    const wrongAudience = await fetch(a.url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${elsewhere}` },
      body,
    });
    expect(wrongAudience.status).toBe(401);
  });
});
