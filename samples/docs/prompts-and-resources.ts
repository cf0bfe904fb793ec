import {
  Complete,
  McpResource,
  McpResourceTemplate,
  Param,
  Prompt,
  type PromptMessage,
  Scopes,
  type ToolContext,
  ValidationError,
} from 'agenttool';
import { Injectable, Module, ToolApp } from 'agenttool/di';
import { type McpServerOptions, serveTools } from 'agenttool/mcp';

/** The open incidents: one service, injected into a prompt and a template. */
@Injectable()
export class IncidentLog {
  readonly #titles = new Map([
    ['inc-1', 'Checkout returns 502'],
    ['inc-2', 'Search is slow'],
  ]);
  readonly #listeners: ((id: string) => void)[] = [];

  ids(): string[] {
    return [...this.#titles.keys()];
  }
  title(id: string): string | undefined {
    return this.#titles.get(id);
  }
  update(id: string, title: string): void {
    this.#titles.set(id, title);
    for (const listener of this.#listeners) listener(id);
  }
  onUpdate(listener: (id: string) => void): void {
    this.#listeners.push(listener);
  }
}

const RUNBOOK = '# Runbook\n\n1. Page the owner.\n2. Roll back the last deploy.\n';
const SEVERITIES = ['sev1', 'sev2', 'sev3'];
// What an incident carries besides its title (a real log would store them).
const SCREENSHOT_PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const VOICE_NOTE_WAV = new Uint8Array([0x52, 0x49, 0x46, 0x46]);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A prompt's arguments: `@Param` fields, checked before `get` runs. */
class TriageArgs {
  @Param('The incident id') incident!: string;
  @Param('How bad it is', { optional: true, enum: SEVERITIES, completions: SEVERITIES })
  severity?: string;
}

@Prompt({
  name: 'triage',
  title: 'Triage an incident',
  description: 'Triage an incident with its evidence and the runbook',
  args: TriageArgs,
})
export class TriagePrompt {
  constructor(private readonly log: IncidentLog) {}

  async get(args: TriageArgs, ctx: ToolContext): Promise<PromptMessage[]> {
    const title = this.log.title(args.incident);
    // A ValidationError is the caller's mistake: invalid params (-32602), as bad arguments are.
    if (title === undefined) throw new ValidationError('incident', `no incident ${args.incident}`);
    let severity = args.severity;
    if (severity === undefined) {
      // Asked as a tool asks: a request to the client (2025), an input request (2026-07-28).
      const answer = await ctx.ask({
        key: 'severity',
        message: `How bad is ${args.incident}?`,
        schema: { type: 'object', properties: { severity: { type: 'string', enum: SEVERITIES } } },
      });
      const given = answer.action === 'accept' ? answer.content?.severity : undefined;
      severity = typeof given === 'string' ? given : 'unrated';
    }
    return [
      {
        role: 'user',
        content: { type: 'text', text: `Triage ${args.incident} (${severity}): ${title}` },
      },
      {
        role: 'user',
        content: { type: 'image', data: base64(SCREENSHOT_PNG), mimeType: 'image/png' },
      },
      {
        role: 'user',
        content: { type: 'audio', data: base64(VOICE_NOTE_WAV), mimeType: 'audio/wav' },
      },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'handbook://runbook', mimeType: 'text/markdown', text: RUNBOOK },
        },
      },
      {
        role: 'user',
        content: {
          type: 'resource_link',
          uri: `incidents://${args.incident}`,
          name: args.incident,
        },
      },
      { role: 'assistant', content: { type: 'text', text: 'I will follow the runbook.' } },
    ];
  }
}

/** A prompt without arguments; the string it gives is one user message. */
@Prompt({ name: 'handover', description: 'Write the on-call handover' })
export class HandoverPrompt {
  constructor(private readonly log: IncidentLog) {}

  get(): string {
    return `Write the handover for ${this.log.ids().join(', ')}.`;
  }
}

@McpResource({ uri: 'handbook://runbook', name: 'runbook', mimeType: 'text/markdown' })
export class Runbook {
  read(): string {
    return RUNBOOK;
  }
}

/** Bytes: served base64 in `blob`. */
@McpResource({ uri: 'handbook://oncall.png', name: 'rota', mimeType: 'image/png' })
export class Rota {
  read(): Uint8Array {
    return SCREENSHOT_PNG;
  }
}

/** No mimeType: its text is text/plain. Listed and read only with the `oncall` scope. */
@McpResource({ uri: 'handbook://pager', name: 'pager', description: 'Who is on call now' })
@Scopes('oncall')
export class Pager {
  read(ctx: ToolContext): string {
    return `ada is on call (asked by ${ctx.auth?.subject ?? 'nobody'})`;
  }
}

/** A template's variables: `@Param` fields, named as in the template. */
class IncidentVars {
  @Param('The incident id') id!: string;
}

@McpResourceTemplate({
  uriTemplate: 'incidents://{id}',
  name: 'incident',
  mimeType: 'application/json',
  vars: IncidentVars,
})
export class IncidentResource {
  constructor(private readonly log: IncidentLog) {}

  read(vars: IncidentVars): string {
    const title = this.log.title(vars.id);
    if (title === undefined) throw new ValidationError('id', `no incident ${vars.id}`);
    return JSON.stringify({ id: vars.id, title });
  }

  /** The incidents there are now, listed by resources/list beside the static resources. */
  list() {
    return this.log.ids().map((id) => ({ uri: `incidents://${id}`, name: id }));
  }

  @Complete('id')
  completeId(value: string): string[] {
    return this.log.ids().filter((id) => id.startsWith(value));
  }
}

@Module({
  prompts: [TriagePrompt, HandoverPrompt],
  resources: [Runbook, Rota, Pager, IncidentResource],
  providers: [IncidentLog],
})
export class HandbookModule {}

/** The handbook's server; an incident's update reaches the clients subscribed to it. */
export async function serveHandbook(options: McpServerOptions = {}) {
  const app = await ToolApp.create(HandbookModule);
  const server = serveTools(app, { name: 'handbook', listPageSize: 50, ...options });
  const log = await app.get(IncidentLog);
  log.onUpdate((id) => void server.resourceUpdated(`incidents://${id}`));
  const stop = async () => {
    await server.close();
    await app.close();
  };
  return { server, log, stop };
}
