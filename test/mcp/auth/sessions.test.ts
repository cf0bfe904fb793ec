/**
 * A session belongs to the subject that opened it: another subject's request that names
 * it, in either era, does not reach it, nor its session-scoped providers (the sample
 * shell), nor a call of it waiting for answers.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTool } from 'agenttool';
import { ToolApp } from 'agenttool/di';
import {
  type HttpListener,
  jwtVerifier,
  type McpToolServer,
  SESSION_META_KEY,
  SESSIONS_EXTENSION,
  serveTools,
} from 'agenttool/mcp';
import { WORKSPACE_ROOT_ENV } from 'agenttool/workspace';
import { WorkspaceModule } from 'agenttool/workspace';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../../fixtures/oauth/jwt-authorization-server';
import { type Answer, bearer, INITIALIZE, modern, post, resultText, send } from './helpers';

let issuer: JwtAuthorizationServer;
let root: string;
let saved: string | undefined;
let app: ToolApp;
let server: McpToolServer;
let listener: HttpListener;

beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({});
  root = realpathSync(mkdtempSync(join(tmpdir(), 'auth-sessions-')));
  mkdirSync(join(root, 'sub'));
  saved = process.env[WORKSPACE_ROOT_ENV];
  process.env[WORKSPACE_ROOT_ENV] = root;
  app = await ToolApp.create(WorkspaceModule);
  server = serveTools(app);
  listener = await server.listenHttp({
    auth: {
      verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
      authorizationServers: [issuer.issuer],
    },
  });
});

afterAll(async () => {
  await server.close();
  await app.close();
  await issuer.close();
  if (saved === undefined) delete process.env[WORKSPACE_ROOT_ENV];
  else process.env[WORKSPACE_ROOT_ENV] = saved;
  rmSync(root, { recursive: true, force: true });
});

const as = (subject: string) => bearer(issuer.mint({ sub: subject, aud: listener.url }));
const bash = (command: string) => ({ name: 'bash', arguments: { command } });

describe('2025 era: the Mcp-Session-Id of another subject', () => {
  test('is not found, on every method, and the owner keeps the session and its shell', async () => {
    const opened = await post(listener.url, INITIALIZE, as('ada'));
    const id = opened.headers.get('mcp-session-id') ?? '';
    const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    const call = (n: number, command: string, subject: string) =>
      post(
        listener.url,
        { jsonrpc: '2.0', id: n, method: 'tools/call', params: bash(command) },
        { ...session, ...as(subject) },
      );
    await post(
      listener.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...session, ...as('ada') },
    );
    expect(resultText(await call(2, 'cd sub && export WHO=ada && pwd', 'ada'))).toBe(
      `${join(root, 'sub')}\n`,
    );

    const notFound = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } };
    const bob: Answer[] = [
      await call(3, 'echo "$WHO"', 'bob'),
      await send(listener.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', ...session, ...as('bob') },
      }),
      await send(listener.url, { method: 'DELETE', headers: { ...session, ...as('bob') } }),
    ];
    expect(bob.map((a) => a.status)).toEqual([404, 404, 404]);
    for (const answer of bob) expect(answer.message).toMatchObject(notFound);

    // Bob's DELETE ended nothing: Ada's shell is where she left it.
    expect(resultText(await call(4, 'pwd; echo "$WHO"', 'ada'))).toBe(
      `${join(root, 'sub')}\nada\n`,
    );
    const ended = await send(listener.url, {
      method: 'DELETE',
      headers: { ...session, ...as('ada') },
    });
    expect(ended.status).toBe(200);
  });
});

describe('2026-07-28: the session handle of another subject', () => {
  const sessions = { [SESSIONS_EXTENSION]: {} };
  const capabilities = { 'io.modelcontextprotocol/clientCapabilities': { extensions: sessions } };

  async function call(subject: string, command: string, handle?: string) {
    const meta = {
      ...capabilities,
      ...(handle === undefined ? {} : { [SESSION_META_KEY]: handle }),
    };
    const answer = await post(listener.url, modern('tools/call', bash(command), meta), as(subject));
    const result = answer.message?.result as { _meta?: Record<string, unknown> } | undefined;
    return { text: resultText(answer), handle: result?._meta?.[SESSION_META_KEY] as string };
  }

  test('starts a session of the caller own, never reaching the holder shell', async () => {
    const first = await call('ada', 'cd sub && export WHO=ada && pwd');
    expect(first.text).toBe(`${join(root, 'sub')}\n`);
    expect(first.handle).toMatch(/^[0-9a-f]{32}$/);
    expect((await call('ada', 'pwd; echo "$WHO"', first.handle)).text).toBe(
      `${join(root, 'sub')}\nada\n`,
    );

    const bob = await call('bob', 'pwd; echo "[$WHO]"', first.handle);
    expect(bob.text).toBe(`${root}\n[]\n`);
    expect(bob.handle).toMatch(/^[0-9a-f]{32}$/);
    expect(bob.handle).not.toBe(first.handle);

    // Bob's own handle is his: his shell keeps its state, Ada's keeps hers.
    await call('bob', 'export WHO=bob', bob.handle);
    expect((await call('bob', 'echo "$WHO"', bob.handle)).text).toBe('bob\n');
    expect((await call('ada', 'pwd; echo "$WHO"', first.handle)).text).toBe(
      `${join(root, 'sub')}\nada\n`,
    );
    expect((await call('ada', 'echo "$WHO"', bob.handle)).handle).not.toBe(bob.handle);
  });
});

describe('2026-07-28: a call waiting for answers', () => {
  test('is answered by its caller only', async () => {
    const asking = newTool({
      name: 'deploy',
      description: 'asks first',
      execute: async (_call, ctx) => {
        const answer = await ctx.ask({
          message: 'deploy?',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        });
        return { output: `${ctx.auth?.subject ?? '?'}: ${answer.action}` };
      },
    });
    const asker = serveTools([asking]);
    const url = (
      await asker.listenHttp({
        auth: {
          verifyToken: jwtVerifier({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }),
          authorizationServers: [issuer.issuer],
        },
      })
    ).url;
    const who = (subject: string) => bearer(issuer.mint({ sub: subject, aud: url }));
    const elicitation = {
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    try {
      const first = await post(
        url,
        modern('tools/call', { name: 'deploy', arguments: {} }, elicitation),
        who('ada'),
      );
      const asked = first.message?.result as { requestState: string; inputRequests: object };
      expect(Object.keys(asked.inputRequests)).toEqual(['elicit_1']);
      const answers = { elicit_1: { action: 'accept', content: { ok: true } } };
      const resume = (state: string) =>
        modern(
          'tools/call',
          { name: 'deploy', arguments: {}, requestState: state, inputResponses: answers },
          elicitation,
          2,
        );

      // Another caller's state is refused as the 2026-07-28 revision refuses state that is
      // not the caller's: a JSON-RPC error (-32602); the run stays parked for its owner.
      const bob = await post(url, resume(asked.requestState), who('bob'));
      expect(bob.message?.error).toEqual({
        code: -32602,
        message:
          'Invalid requestState: it was issued to another caller; call the tool again without it',
        data: { reason: 'invalid_request_state' },
      });
      expect(resultText(await post(url, resume(asked.requestState), who('ada')))).toBe(
        'ada: accept',
      );
    } finally {
      await asker.close();
    }
  });
});
