import { type Client } from '@modelcontextprotocol/client';
import { AgentToolError, goQuote } from '../../../core';
import { type SendOptions } from '../calls';

/**
 * The most pages one listing fetches: a server that pages past it is taken to loop (the
 * SDK's own walk stops at 64; ours reads further, but not forever).
 */
export const MAX_LIST_PAGES = 1000;

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
 * server would page forever. `send` makes each request (see `RemoteCalls.send`).
 */
export async function listEvery<T>(
  paged: Paged<T>,
  where: string,
  send: <R>(fetch: (client: Client, options: SendOptions) => Promise<R>) => Promise<R>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await send((client, options) => paged.page(client, cursor, options));
    items.push(...page.items);
    const next = page.nextCursor;
    if (next === undefined || next === '') return items;
    if (seen.has(next)) {
      throw new AgentToolError(
        'PROTOCOL',
        `${where}: the server repeated the cursor ${goQuote(next)} after ${pages} pages (it would page forever)`,
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
