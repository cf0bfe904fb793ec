/**
 * Per-tool guards as a client meets them: `@Scopes`, `@Guard` and a module's `guards`
 * decide, per caller, which tools are listed and which calls run; a refused call reads
 * exactly as a call of an unknown tool; annotations grant nothing.
 */
import {
  Annotations,
  type AccessRequest,
  type AuthInfo,
  Guard,
  Scopes,
  Tool,
  type ToolContext,
} from 'agenttool';
import { CallAuth, type CanActivate, Injectable, Module, ToolApp } from 'agenttool/di';
import { type HttpListener, jwtVerifier, type McpToolServer, serveTools } from 'agenttool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type JwtAuthorizationServer,
  startJwtAuthorizationServer,
} from '../../fixtures/oauth/jwt-authorization-server';
import { bearer, INITIALIZE, modern, post } from './helpers';

@Injectable()
class Blocklist {
  readonly blocked = new Set(['mallory']);
}

/** A guard class with an injected dependency, as NestJS writes one. */
@Injectable()
class NotBlocked implements CanActivate {
  constructor(private readonly blocklist: Blocklist) {}
  canActivate(request: AccessRequest): boolean {
    return request.auth !== undefined && !this.blocklist.blocked.has(request.auth.subject);
  }
}

@Tool({ name: 'read_notes', description: 'Reads your notes' })
@Scopes('files:read')
class ReadNotes {
  constructor(private readonly auth: CallAuth) {}
  execute(): string {
    return `the notes of ${this.auth.subject ?? '?'}`;
  }
}

// Annotated read-only and idempotent: hints, which grant nothing.
@Tool({ name: 'write_notes', description: 'Writes your notes' })
@Annotations({ readOnly: true, idempotent: true })
@Scopes('files:write')
class WriteNotes {
  execute(): string {
    return 'written';
  }
}

@Tool({ name: 'whoami', description: 'Says who calls' })
class WhoAmI {
  execute(_args: object, ctx: ToolContext): string {
    const auth = ctx.auth;
    return auth === undefined
      ? 'nobody'
      : `${auth.subject} ${auth.clientId} [${auth.scopes.join(' ')}] ${typeof auth.expiresAt}`;
  }
}

@Tool({ name: 'audit', description: 'Admins only' })
@Guard((request) => request.auth?.claims?.role === 'admin')
class Audit {
  execute(): string {
    return 'audited';
  }
}

@Tool({ name: 'flaky', description: 'Its guard fails' })
@Guard(() => {
  throw new Error('the policy service is down');
})
class Flaky {
  execute(): string {
    return 'ran';
  }
}

@Module({
  tools: [ReadNotes, WriteNotes, WhoAmI, Audit, Flaky],
  providers: [Blocklist],
  guards: [NotBlocked],
})
class NotesModule {}

let issuer: JwtAuthorizationServer;
let app: ToolApp;
let server: McpToolServer;
let listener: HttpListener;
const reported: string[] = [];

beforeAll(async () => {
  issuer = await startJwtAuthorizationServer({});
  app = await ToolApp.create(NotesModule);
  server = serveTools(app, { onError: (message) => reported.push(message) });
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
});

const token = (sub: string, scope: string, extra: Record<string, unknown> = {}): string =>
  issuer.mint({ sub, scope, aud: listener.url, client_id: 'notes-app', ...extra });

const callers = {
  ada: () => token('ada', 'files:read files:write'),
  bob: () => token('bob', 'files:read'),
  mallory: () => token('mallory', 'files:read files:write'),
  root: () => token('root', '', { role: 'admin' }),
};

/** The requests of one era: list the tools, call one. */
const eras = {
  '2025 era': {
    list: async (t: string) => legacy(t, 'tools/list', {}),
    call: async (t: string, name: string) => legacy(t, 'tools/call', { name, arguments: {} }),
  },
  '2026-07-28': {
    list: async (t: string) => result(await post(listener.url, modern('tools/list'), bearer(t))),
    call: async (t: string, name: string) =>
      result(await post(listener.url, modern('tools/call', { name, arguments: {} }), bearer(t))),
  },
};

/** One 2025-era request in a session of its own (the session is ended after). */
async function legacy(t: string, method: string, params: object): Promise<Record<string, unknown>> {
  const opened = await post(listener.url, INITIALIZE, bearer(t));
  const id = opened.headers.get('mcp-session-id') ?? '';
  const headers = { ...bearer(t), 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  await post(listener.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  const answer = await post(listener.url, { jsonrpc: '2.0', id: 2, method, params }, headers);
  await fetch(listener.url, { method: 'DELETE', headers });
  return result(answer);
}

/** A result without what the 2026-07-28 era adds to every one (server info, result type). */
function result(answer: { message: Record<string, unknown> | undefined; text: string }) {
  const value = answer.message?.result as Record<string, unknown> | undefined;
  if (value === undefined) throw new Error(`no result: ${answer.text}`);
  const { _meta: meta, resultType, ...rest } = value;
  void meta;
  void resultType;
  return rest;
}

const names = (listed: Record<string, unknown>): string[] =>
  (listed.tools as { name: string }[]).map((t) => t.name);

describe.each(Object.entries(eras))('%s', (_era, era) => {
  test('each caller lists the tools it may use, and only those', async () => {
    expect(names(await era.list(callers.ada()))).toEqual(['read_notes', 'write_notes', 'whoami']);
    expect(names(await era.list(callers.bob()))).toEqual(['read_notes', 'whoami']);
    // The module's guard refuses mallory everything, whatever the token's scopes.
    expect(names(await era.list(callers.mallory()))).toEqual([]);
    expect(names(await era.list(callers.root()))).toEqual(['whoami', 'audit']);
  });

  test('a call of a tool the caller may not use reads exactly as one of an unknown tool', async () => {
    const bob = callers.bob();
    const refused = await era.call(bob, 'write_notes');
    const unknown = await era.call(bob, 'no_such_tool');
    expect(refused).toEqual({
      content: [{ type: 'text', text: 'unknown tool "write_notes"' }],
      isError: true,
    });
    expect(JSON.stringify(refused).replace('write_notes', 'no_such_tool')).toBe(
      JSON.stringify(unknown),
    );
    expect(await era.call(callers.mallory(), 'whoami')).toEqual({
      content: [{ type: 'text', text: 'unknown tool "whoami"' }],
      isError: true,
    });
    expect(await era.call(callers.ada(), 'audit')).toMatchObject({ isError: true });
  });

  test('a caller with the scope calls the tool; the call carries the caller', async () => {
    expect(await era.call(callers.ada(), 'write_notes')).toEqual({
      content: [{ type: 'text', text: 'written' }],
    });
    expect(await era.call(callers.bob(), 'read_notes')).toEqual({
      content: [{ type: 'text', text: 'the notes of bob' }],
    });
    expect(await era.call(callers.bob(), 'whoami')).toEqual({
      content: [{ type: 'text', text: 'bob notes-app [files:read] number' }],
    });
    expect(await era.call(callers.root(), 'audit')).toEqual({
      content: [{ type: 'text', text: 'audited' }],
    });
  });

  test('a guard that fails refuses, and the failure is reported', async () => {
    reported.length = 0;
    expect(names(await era.list(callers.ada()))).not.toContain('flaky');
    expect(await era.call(callers.ada(), 'flaky')).toEqual({
      content: [{ type: 'text', text: 'unknown tool "flaky"' }],
      isError: true,
    });
    expect(reported).toContain('mcp: tool "flaky": a guard failed');
  });
});

describe('connections without credentials (stdio, in memory)', () => {
  async function listed(localAuth?: AuthInfo): Promise<string[]> {
    const local = serveTools(app, { localAuth, onError: () => undefined });
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await local.connect(serverEnd);
    const client = new Client({ name: 'local', version: '0' });
    await client.connect(clientEnd);
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
      await local.close();
    }
  }

  test('hold no scopes unless the host states their caller', async () => {
    expect(await listed()).toEqual([]);
    expect(await listed({ subject: 'me', clientId: '', scopes: ['files:read'] })).toEqual([
      'read_notes',
      'whoami',
    ]);
  });
});
