import { type ToolAccess } from './auth';
import { type ToolContext } from './context';
import { type JsonObject } from './json';

// MCP's other primitives beside tools: prompts (message templates a user picks) and
// resources (data a client reads by URI). They are not the executor's resources (a
// lock that serializes calls, `Tool.resource`); to keep the two apart, the data kind
// is always spelt with MCP in front (`McpResource`, `McpResourceTemplate`).

/** One argument of a prompt, as `prompts/list` shows it. */
export interface PromptArgument {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly required?: boolean | undefined;
}

/** The contents of a resource: text, or bytes (base64 in `blob`). */
export type ResourceContents =
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      readonly text: string;
      readonly _meta?: JsonObject | undefined;
    }
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      /** The bytes, base64-encoded. */
      readonly blob: string;
      readonly _meta?: JsonObject | undefined;
    };

/** One block of a prompt message. */
export type PromptContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: ResourceContents }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly title?: string | undefined;
      readonly description?: string | undefined;
      readonly mimeType?: string | undefined;
    };

/** One message of a prompt: who says it, and one block. */
export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: PromptContent;
}

/**
 * What a prompt gives: one user message (a string), messages, or messages with a
 * description of this rendering.
 */
export type PromptReply =
  | string
  | readonly PromptMessage[]
  | { readonly description?: string | undefined; readonly messages: readonly PromptMessage[] };

/**
 * What a resource read gives: text (typed with the resource's MIME type), bytes, one
 * contents object, or several (a `uri` left out is the URI read).
 */
export type ResourceReply =
  | string
  | Uint8Array
  | ResourceBody
  | readonly ResourceBody[]
  | { readonly contents: readonly ResourceBody[] };

/** A resource's contents as a reader gives them: the URI and MIME type may be left out. */
export type ResourceBody =
  | {
      readonly uri?: string | undefined;
      readonly mimeType?: string | undefined;
      readonly text: string;
      readonly _meta?: JsonObject | undefined;
    }
  | {
      readonly uri?: string | undefined;
      readonly mimeType?: string | undefined;
      readonly blob: string | Uint8Array;
      readonly _meta?: JsonObject | undefined;
    };

/**
 * Some of the values that complete an argument, with how many there are in all: what a
 * completer returns when it does not hold them all at hand (a search that stops at a
 * page, another server's answer).
 */
export interface CompletionValues {
  /** The values shown; an answer holds the first 100 (MCP's limit). */
  readonly values: readonly string[];
  /**
   * How many values fit in all, when known; an answer never says fewer than the values
   * it holds. Without it, and without `hasMore`, the values are all there are.
   */
  readonly total?: number | undefined;
  /** Whether more values fit than `values` holds (true when `total` says so too). */
  readonly hasMore?: boolean | undefined;
}

/**
 * Completes an argument of a prompt or a variable of a resource template: the values
 * that fit what the user typed so far (`value`), given the other arguments already
 * filled in (`context`); `ctx` is the request's (its session and caller). A list is
 * every value that fits; {@link CompletionValues} is some of them, with how many there
 * are.
 */
export type Completer = (
  value: string,
  context: Readonly<Record<string, string>>,
  ctx: ToolContext,
) => readonly string[] | CompletionValues | Promise<readonly string[] | CompletionValues>;

/**
 * A prompt: a named message template the user picks, rendered with its arguments by
 * `get`. Arguments are strings, as MCP has them. `get` runs with a call context
 * (`ctx.ask`, `ctx.sample`, `ctx.session`, `ctx.auth` as in a tool); throwing fails the
 * request with the error's message, a `ValidationError` as invalid params. A host
 * checks that the required arguments are there before `get` runs.
 */
export interface Prompt {
  /** Non-empty, unique among the prompts served together. */
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly arguments?: readonly PromptArgument[] | undefined;
  get(args: Readonly<Record<string, string>>, ctx: ToolContext): PromptReply | Promise<PromptReply>;
  /** Completers by argument name. */
  readonly completions?: Readonly<Record<string, Completer>> | undefined;
  /** Who may list and get the prompt (scopes, guards); absent: every caller. */
  readonly access?: ToolAccess | undefined;
}

/** MCP's audience and priority hints of a resource. */
export interface ResourceAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[] | undefined;
  readonly priority?: number | undefined;
  readonly lastModified?: string | undefined;
}

/** What resources and templates both describe. */
export interface ResourceDescription {
  /** A short name, unique among the resources (or templates) served together. */
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly mimeType?: string | undefined;
  /** MCP's audience and priority hints. */
  readonly annotations?: ResourceAnnotations | undefined;
  /** Who may list and read it (scopes, guards); absent: every caller. */
  readonly access?: ToolAccess | undefined;
  /**
   * Follows the resource at `uri` while clients subscribe to it (2025-era
   * `resources/subscribe`, or a 2026-07-28 `subscriptions/listen` stream naming it):
   * a server calls it when the first of its connections (or streams) subscribes to
   * `uri` (for a template, a URI it matches), and calls the function it returns once,
   * when the last of them has unsubscribed or ended. Meanwhile `changed()` says the
   * resource changed: the server sends `notifications/resources/updated` to each
   * subscribed connection or stream whose caller may still read it. The subscription is
   * answered once it returns (or its promise settles), so it answers promptly: throwing
   * or rejecting refuses it, with the error's message (as a read's failure is
   * answered). Without it, a server keeps the subscriptions alone, and is told of
   * changes by whoever changes the resource (`McpToolServer.resourceUpdated`). Remote
   * servers' resources served by `McpServers` follow theirs this way.
   */
  follow?(uri: string, changed: () => void): StopFollowing | Promise<StopFollowing>;
}

/**
 * Stops following a resource (what {@link ResourceDescription.follow} returns): called
 * once; what it throws or rejects with is reported by the server, not sent to a client.
 */
export type StopFollowing = () => void | Promise<void>;

/**
 * A resource at one URI, read by `read`. Not the executor's resource
 * (`Tool.resource`, a lock that serializes calls): this is data a client reads.
 */
export interface McpResource extends ResourceDescription {
  /** The URI, unique among the resources served together. */
  readonly uri: string;
  /** The size in bytes, when known. */
  readonly size?: number | undefined;
  read(ctx: ToolContext): ResourceReply | Promise<ResourceReply>;
}

/** A resource a template lists: its URI and name, and optionally more. */
export interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly mimeType?: string | undefined;
  readonly size?: number | undefined;
}

/**
 * Resources at the URIs that match an RFC 6570 template (`users://{id}/profile`): `read`
 * gets the template's variables taken from the URI read, and the URI.
 */
export interface McpResourceTemplate extends ResourceDescription {
  readonly uriTemplate: string;
  read(
    vars: Readonly<Record<string, string>>,
    uri: string,
    ctx: ToolContext,
  ): ResourceReply | Promise<ResourceReply>;
  /** The resources the template has now, listed by `resources/list` beside the static ones. */
  list?(ctx: ToolContext): readonly ListedResource[] | Promise<readonly ListedResource[]>;
  /** Completers by variable name. */
  readonly completions?: Readonly<Record<string, Completer>> | undefined;
}

/** True for a template, false for a resource at one URI. */
export function isResourceTemplate(
  entry: McpResource | McpResourceTemplate,
): entry is McpResourceTemplate {
  return typeof (entry as Partial<McpResourceTemplate>).uriTemplate === 'string';
}

/**
 * True when `uri` starts with a URI scheme (`scheme:...`, RFC 3986 §3.1): what a served
 * resource's URI must have.
 */
export function hasUriScheme(uri: string): boolean {
  return URI_SCHEME.test(uri);
}

const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
