// A 2025-era session's request that reuses the id of one still waiting for its answer
// (or of another request of its batch) is refused with 400 and -32600, saying so. The
// SDK files a request's answer by its id: the second took the first one's place, and
// the first was never answered (its stream held open, kept alive, and the server's
// close waited its whole grace for it). Raw requests over a listener on loopback.
import { newTool } from 'agenttool';
import { type HttpListener, McpToolServer } from 'agenttool/mcp';
import { deferred } from './helpers';
import { INITIALIZE } from '../../support/initialize';

const HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
};

let started = deferred();
let release = deferred();
const server = new McpToolServer([
  newTool({
    name: 'wait',
    description: 'Answers once the test lets it',
    execute: async () => {
      started.resolve();
      await release.promise;
      return { output: 'waited' };
    },
  }),
]);
let listener: HttpListener;
let session: string;

beforeAll(async () => {
  listener = await server.listenHttp();
  const opened = await fetch(listener.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(INITIALIZE),
  });
  session = opened.headers.get('mcp-session-id') ?? '';
  await opened.text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
});
afterAll(() => server.close());
beforeEach(() => {
  started = deferred();
  release = deferred();
});

function post(body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(listener.url, {
    method: 'POST',
    ...(signal === undefined ? {} : { signal }),
    headers: {
      ...HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': INITIALIZE.params.protocolVersion,
    },
    body: JSON.stringify(body),
  });
}

const callOf = (id: number | string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'wait', arguments: {} },
});

/** The one JSON-RPC message of an answer, JSON or a stream's event. */
async function messageOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return JSON.parse(json) as Record<string, unknown>;
}

const reusing = (id: number | string, by: string) =>
  `Invalid request: the id ${JSON.stringify(id)} is already used by ${by}; give each request in flight an id of its own`;

test('a request reusing the id of one waiting for its answer is refused, and the first is answered', async () => {
  const first = post(callOf(7));
  // The first is in flight once its tool runs: the second comes while it waits.
  await started.promise;
  const second = await post(callOf(7));
  expect(second.status).toBe(400);
  expect(await messageOf(second)).toEqual({
    jsonrpc: '2.0',
    id: 7,
    error: {
      code: -32600,
      message: reusing(7, 'a request of this session that has not been answered'),
    },
  });
  // Another id is served meanwhile, and the string "7" is another id than 7.
  const other = post(callOf('7'));
  release.resolve();
  expect(await messageOf(await first)).toMatchObject({
    id: 7,
    result: { content: [{ text: 'waited' }] },
  });
  expect(await messageOf(await other)).toMatchObject({
    id: '7',
    result: { content: [{ text: 'waited' }] },
  });
  // Answered, the id is free again.
  expect(await messageOf(await post(callOf(7)))).toMatchObject({ id: 7, result: {} });
});

test('a batch whose requests share an id is refused whole, before any runs', async () => {
  const refused = await post([callOf(9), callOf(9)]);
  expect(refused.status).toBe(400);
  expect(await messageOf(refused)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: reusing(9, 'another request of the batch') },
  });
});

test('a retry may take the id of a request whose client has gone', async () => {
  const gone = new AbortController();
  const first = post(callOf(11), gone.signal).catch(() => 'aborted');
  await started.promise;
  gone.abort();
  expect(await first).toBe('aborted');
  // The server learns of the abort as the connection closes: until then the id is
  // taken (refused), after it the retry runs its tool.
  let accepted: Promise<Response> | undefined;
  for (let attempt = 0; attempt < 200 && accepted === undefined; attempt++) {
    started = deferred();
    const pending = post(callOf(11));
    const outcome = await Promise.race([pending, started.promise.then(() => 'ran' as const)]);
    if (outcome === 'ran') accepted = pending;
    else {
      expect(outcome.status).toBe(400);
      await outcome.text();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  release.resolve();
  expect(accepted).toBeDefined();
  expect(await messageOf(await accepted!)).toMatchObject({
    id: 11,
    result: { content: [{ text: 'waited' }] },
  });
});
