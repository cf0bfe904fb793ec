/** Raw HTTP requests to an MCP endpoint, so a test controls every header and byte. */

export const MODERN = '2026-07-28';

/** A 2025-era `initialize` request. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
};

/** A 2026-07-28 request: its `_meta` envelope, as the SDK's client writes it. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
  id: number | string = 1,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The JSON-RPC message of the answer: the JSON body, or the first SSE `data:` line. */
  readonly message: Record<string, unknown> | undefined;
}

/** POSTs `body` to `url` with the standard headers (a 2026-07-28 request's too). */
export async function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const params = body.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
  const isModern = params?._meta?.['io.modelcontextprotocol/protocolVersion'] === MODERN;
  return send(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(isModern
        ? {
            'mcp-protocol-version': MODERN,
            'mcp-method': String(body.method),
            ...(typeof params?.name === 'string' ? { 'mcp-name': params.name } : {}),
          }
        : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Any request; the answer read whole. */
export async function send(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, message: messageOf(text) };
}

function messageOf(text: string): Record<string, unknown> | undefined {
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  try {
    return JSON.parse(data === undefined ? text : data.slice(6)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The parameters of a `WWW-Authenticate: Bearer ...` challenge. */
export function challengeOf(answer: Answer): Record<string, string> {
  const header = answer.headers.get('www-authenticate') ?? '';
  expect(header.startsWith('Bearer ')).toBe(true);
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
    params[match[1]!] = match[2]!.replace(/\\(.)/g, '$1');
  }
  return params;
}

/** The text of a call result's first content block. */
export function resultText(answer: Answer): string {
  const result = answer.message?.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text ?? `<no result: ${answer.text}>`;
}
