/**
 * The command with authorization: `serve --http` requiring bearer tokens of an issuer,
 * `list` and `call` presenting one (`--token`) or the stored OAuth grant (`--oauth`,
 * logging in through the browser redirect the first time).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../fixtures/oauth/jwt-authorization-server';
import {
  APP,
  ensureBuilt,
  killChildren,
  runAgenttool,
  type Running,
  startAgenttool,
  tempDir,
} from './helpers';

let issuer: JwtAuthorizationServer;
let server: Running;
let url: string;

beforeAll(async () => {
  ensureBuilt();
  issuer = await startJwtAuthorizationServer({ ada: ['tools'] });
  server = startAgenttool([
    'serve',
    APP,
    '--http',
    '127.0.0.1:0',
    '--auth-issuer',
    issuer.issuer,
    '--auth-jwks',
    issuer.jwksUrl,
  ]);
  [, url = ''] = await server.waitForStderr(/over Streamable HTTP at (http:\S+)\n/);
}, 300_000);

afterAll(async () => {
  server.process.kill('SIGTERM');
  await server.done;
  await issuer.close();
  killChildren();
});

const token = (): string => issuer.mint({ sub: 'ada', aud: url, scope: 'tools' });

describe('agenttool serve --http --auth-issuer --auth-jwks', () => {
  it('says how it authorizes, and refuses a request without a token', async () => {
    const ran = await server.waitForStderr(/ {2}authorization: on: (.*)\n/);
    expect(ran[1]).toBe(`bearer tokens from ${issuer.issuer} for ${url}`);
    const refused = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="${url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}"`,
    );
  });

  it('refuses --auth options it cannot use', async () => {
    expect(await runAgenttool(['serve', APP, '--auth-issuer', issuer.issuer])).toMatchObject({
      code: 2,
      stderr: 'agenttool: --auth-* options apply to --http only\n',
    });
    expect(
      await runAgenttool(['serve', APP, '--http', '0', '--auth-issuer', issuer.issuer]),
    ).toMatchObject({
      code: 2,
      stderr:
        "agenttool: give one of --auth-jwks <url> (the issuer's signing keys, for JWT access tokens) or --auth-verifier <module.js> (a verifyToken of your own)\n",
    });
    expect(
      await runAgenttool(['serve', APP, '--http', '0', '--auth-jwks', issuer.jwksUrl]),
    ).toMatchObject({
      code: 2,
      stderr:
        'agenttool: give --auth-issuer <url>: the authorization server clients get their tokens from\n',
    });
  });
});

describe('agenttool list and call --http --token', () => {
  it('list and call with the token', async () => {
    const listed = await runAgenttool(['list', '--http', url, '--token', token(), '--json']);
    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as { definition: { name: string } }[]).map(
        (t) => t.definition.name,
      ),
    ).toContain('echo');
    expect(
      await runAgenttool([
        'call',
        '--http',
        url,
        '--token',
        token(),
        'echo',
        '{"text":"authorized"}',
      ]),
    ).toMatchObject({ code: 0, stdout: 'authorized\n' });
  });

  it('fail to connect without a token, or with a bad one', async () => {
    const without = await runAgenttool(['list', '--http', url]);
    expect(without.code).toBe(3);
    expect(without.stderr).toMatch(
      new RegExp(
        `^agenttool: ${url}: .*\\(HTTP 401\\); give --token <access token>, or --oauth to log in\n$`,
      ),
    );
    const forged = await runAgenttool(['list', '--http', url, '--token', 'forged']);
    expect(forged.code).toBe(3);
    expect(await runAgenttool(['list', APP, '--token', 'x'])).toMatchObject({
      code: 2,
      stderr: 'agenttool: --token and --oauth apply to --http only\n',
    });
  });
});

/** A port free now, for the login's loopback redirect. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('agenttool list --http --oauth', () => {
  it('logs in through the browser redirect once, then uses the stored grant', async () => {
    const store = join(tempDir(), 'tokens.json');
    let port = '';
    let args: string[] = [];
    let first: ReturnType<typeof startAgenttool> | undefined;
    let page: string | undefined;
    // The port was free when asked; when something took it in between, the command says
    // so and exits, and the login starts again on another one (three times at most).
    for (let attempt = 1; page === undefined; attempt++) {
      port = String(await freePort());
      args = ['list', '--http', url, '--oauth', '--token-store', store, '--oauth-port', port];
      first = startAgenttool(args);
      try {
        [, page] = await first.waitForStderr(/authorize in a browser: open\n {2}(\S+)\n/);
      } catch (error) {
        if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
      }
    }
    // The browser: the authorization server approves at once and redirects to the command.
    const approved = await fetch(page, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = approved.headers.get('location') ?? '';
    expect(callback.startsWith(`http://127.0.0.1:${port}/callback?code=`)).toBe(true);
    expect(await (await fetch(callback)).text()).toBe(
      'Authorized. You may close this page and return to the terminal.\n',
    );
    const ran = await first!.done;
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('echo');
    expect(existsSync(store)).toBe(true);

    const again = await runAgenttool(args);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('echo');
    expect(again.stderr).not.toContain('authorize');
  });
});
