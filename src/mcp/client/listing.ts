import { type Client } from '@modelcontextprotocol/client';
import { AgentToolError, errorMessage, isJsonObject, type JsonObject } from '../../core';
import { RAW_RESULT } from './calls';
import { excerpt, jsonExcerpt, quotedExcerpt } from './excerpts';
import { jsonBytes, MAX_LIST_PAGES, MAX_LISTING_BYTES } from './primitives';
import { refusalOf } from './refusals';

/** The most tools a listing takes from one server (a model can use far fewer). */
const MAX_LISTED_TOOLS = 100_000;

/**
 * Every tool the server lists, page by page as it pages them, as raw definitions, each
 * page's request within `timeoutMs` (the SDK's default when absent). A
 * page without a `tools` array, a listed tool that is not an object, a cursor the
 * server repeats, more than `MAX_LIST_PAGES` pages (it would page forever), more than
 * 100,000 tools or more than 16 MiB of them (counted as JSON: each page is bounded, but
 * a server paging on could make the client hold gigabytes) fails the listing. Every failure reads
 * `mcp: list tools: <reason>` (code `PROTOCOL` for what the server sent, `RATE_LIMITED`
 * for a request the server refused with HTTP 429 or 503, `CONNECTION` for a request that
 * failed otherwise). What the server sent is quoted cut short (see excerpts.ts).
 */
export async function listAllTools(
  client: Client,
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<JsonObject[]> {
  try {
    return await listPages(client, signal, timeoutMs);
  } catch (error) {
    if (error instanceof AgentToolError) throw error;
    // A refusal (429, 503) is the server busy, not gone: the listing fails, not the connection.
    const refusal = refusalOf('mcp: list tools', error, 'request');
    if (refusal !== undefined) throw refusal;
    throw new AgentToolError('CONNECTION', `mcp: list tools: ${excerpt(errorMessage(error))}`, {
      cause: error,
    });
  }
}

async function listPages(
  client: Client,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<JsonObject[]> {
  const raws: JsonObject[] = [];
  let bytes = 0;
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      RAW_RESULT,
      {
        ...(signal === undefined ? {} : { signal }),
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      },
    );
    const tools = page.tools;
    if (!Array.isArray(tools)) throw listingError('the result has no "tools" array');
    for (const tool of tools as unknown[]) {
      if (!isJsonObject(tool)) {
        throw listingError(`a listed tool is not an object: ${jsonExcerpt(tool)}`);
      }
      bytes += jsonBytes(tool);
      if (bytes > MAX_LISTING_BYTES) {
        throw listingError(`the server listed more than ${MAX_LISTING_BYTES} bytes of tools`);
      }
      raws.push(tool);
    }
    const next = page.nextCursor;
    cursor = typeof next === 'string' && next !== '' ? next : undefined;
    if (cursor !== undefined) {
      if (cursors.has(cursor))
        throw listingError(`the server repeated the cursor ${quotedExcerpt(cursor)}`);
      // Each cursor new, and pages without end: it would page (and grow) forever.
      if (cursors.size + 1 >= MAX_LIST_PAGES) {
        throw listingError(
          `the server still had more after ${MAX_LIST_PAGES} pages (it may page forever)`,
        );
      }
      cursors.add(cursor);
    }
    if (raws.length > MAX_LISTED_TOOLS) {
      throw listingError(`the server listed more than ${MAX_LISTED_TOOLS} tools`);
    }
  } while (cursor !== undefined);
  return raws;
}

function listingError(reason: string): AgentToolError {
  return new AgentToolError('PROTOCOL', `mcp: list tools: ${reason}`);
}
