import { type AccessRequest, Guard, Param, Scopes, Tool, type ToolContext } from 'agenttool';
import { CallAuth, type CanActivate, Injectable, Module, ToolApp } from 'agenttool/di';
import { jwtVerifier, serveTools } from 'agenttool/mcp';

class NoteArgs {
  @Param('The note') text!: string;
}

/** A guard as NestJS writes one: an injectable class deciding on the caller. */
@Injectable()
export class KnownUsers implements CanActivate {
  readonly #known = new Set(['ada', 'bob']);
  canActivate(request: AccessRequest): boolean {
    return this.#known.has(request.auth?.subject ?? '');
  }
}

@Tool({ name: 'read_notes', description: "Read the caller's notes" })
@Scopes('notes:read')
export class ReadNotes {
  execute(_args: object, ctx: ToolContext): string {
    return `the notes of ${ctx.auth?.subject ?? 'nobody'}`;
  }
}

@Tool({ name: 'add_note', description: 'Add a note', args: NoteArgs })
@Scopes('notes:write')
@Guard((request) => request.auth?.claims?.email_verified === true)
export class AddNote {
  constructor(private readonly auth: CallAuth) {}
  execute(args: NoteArgs): string {
    return `noted for ${this.auth.subject ?? 'nobody'}: ${args.text}`;
  }
}

@Module({ tools: [ReadNotes, AddNote], providers: [KnownUsers], guards: [KnownUsers] })
export class NotesModule {}

/**
 * Serves the notes over Streamable HTTP to callers with tokens of `issuer`: JWTs signed
 * with the keys at `jwksUrl`, issued for this server (its URL is their audience).
 */
export async function serveNotes(issuer: string, jwksUrl: string) {
  const app = await ToolApp.create(NotesModule);
  const server = serveTools(app, { name: 'notes' });
  const listener = await server.listenHttp({
    auth: {
      verifyToken: jwtVerifier({ issuer, jwksUrl }),
      authorizationServers: [issuer],
    },
  });
  const stop = async () => {
    await server.close();
    await app.close();
  };
  return { url: listener.url, stop };
}
