import { type Client } from '@modelcontextprotocol/client';
import { AgentToolError } from '../../../core';
import { type SendOptions } from '../calls';
import { quotedExcerpt } from '../excerpts';

/**
 * The most pages one listing fetches: a server that pages past it is taken to loop (the
 * SDK's own walk stops at 64; ours reads further, but not forever).
 */
export const MAX_LIST_PAGES = 1000;

/** The most items one listing takes from a server, as of its tools (a model can use far fewer). */
export const MAX_LISTED_ITEMS = 100_000;

/**
 * The most bytes one listing takes from a server, its items counted as JSON: each page is
 * bounded by `maxMessageBytes` (10 MiB by default), but a server paging up to
 * {@link MAX_LIST_PAGES} of them could make the client hold gigabytes.
 */
export const MAX_LISTING_BYTES = 16 * 1024 * 1024;

/** A list method with cursors, and the member of its result that holds the items. */
export interface Paged<T> {
  readonly method: 'prompts/list' | 'resources/list' | 'resources/templates/list';
  /** Fetches one page: the first when `cursor` is undefined. */
  readonly page: (
    client: Client,
    cursor: string | undefined,
    options: SendOptions,
  ) => Promise<{ readonly items: readonly T[]; readonly nextCursor?: string | undefined }>;
}

/**
 * Every item of a paged list, page after page until the server gives no `nextCursor`.
 * A cursor the server repeats, or more than {@link MAX_LIST_PAGES} pages, fails the
 * listing (`<where>: the server repeated the cursor "..."`, code `PROTOCOL`): such a
 * server would page forever. So do more than {@link MAX_LISTED_ITEMS} items or
 * {@link MAX_LISTING_BYTES} bytes of them (`<where>: the server listed more than 100000
 * prompts, the most one listing takes`). `send` makes each request (see
 * `RemoteCalls.send`).
 */
export async function listEvery<T>(
  paged: Paged<T>,
  where: string,
  send: <R>(fetch: (client: Client, options: SendOptions) => Promise<R>) => Promise<R>,
): Promise<T[]> {
  const items: T[] = [];
  let bytes = 0;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await send((client, options) => paged.page(client, cursor, options));
    if (items.length + page.items.length > MAX_LISTED_ITEMS) {
      throw tooMuch(where, paged, `more than ${MAX_LISTED_ITEMS}`);
    }
    // One at a time: a page of 200,000 spread as arguments overflows the stack.
    for (const item of page.items) {
      bytes += jsonBytes(item);
      if (bytes > MAX_LISTING_BYTES) {
        throw tooMuch(where, paged, `more than ${MAX_LISTING_BYTES} bytes of`);
      }
      items.push(item);
    }
    const next = page.nextCursor;
    if (next === undefined || next === '') return items;
    if (seen.has(next)) {
      throw new AgentToolError(
        'PROTOCOL',
        `${where}: the server repeated the cursor ${quotedExcerpt(next)} after ${pages} pages (it would page forever)`,
      );
    }
    if (pages >= MAX_LIST_PAGES) {
      throw new AgentToolError(
        'PROTOCOL',
        `${where}: the server still had more after ${MAX_LIST_PAGES} pages (it may page forever)`,
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/** `<where>: the server listed more than <bound> <items>, the most one listing takes`. */
function tooMuch(where: string, paged: Paged<unknown>, bound: string): AgentToolError {
  return new AgentToolError(
    'PROTOCOL',
    `${where}: the server listed ${bound} ${KINDS[paged.method]}, the most one listing takes`,
  );
}

const KINDS: Readonly<Record<Paged<unknown>['method'], string>> = {
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resource templates',
};

/**
 * About how many bytes `value` takes as JSON, walked without recursion: a definition
 * nested too deep for `JSON.stringify` (left out when the tools are mapped) still counts.
 * An object or array counts as 32 bytes at least, near what it takes in memory: a
 * listing of many empty ones is bounded by what it holds, not by its few bytes of JSON.
 */
export function jsonBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') bytes += Buffer.byteLength(item) + 2;
    else if (Array.isArray(item)) {
      bytes += 32 + item.length;
      for (const member of item) pending.push(member);
    } else if (typeof item === 'object' && item !== null) {
      bytes += 32;
      for (const [key, member] of Object.entries(item)) {
        bytes += Buffer.byteLength(key) + 4;
        pending.push(member);
      }
    } else bytes += String(item).length;
  }
  return bytes;
}
