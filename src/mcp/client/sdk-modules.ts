import type * as ClientAuth from '@modelcontextprotocol/sdk/client/auth.js';
import type * as ClientStdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as ClientHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The SDK's client transports and auth take a fresh process some 80 ms to load; an app
// that only serves tools, or only spawns a stdio server, should not pay for the rest.
// Each is loaded where a connection first needs it (require caches it after that).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */

/** The SDK's client auth module (`UnauthorizedError`, ...). */
export function clientAuth(): typeof ClientAuth {
  return require('@modelcontextprotocol/sdk/client/auth.js') as typeof ClientAuth;
}

/** The SDK's stdio client transport module. */
export function clientStdio(): typeof ClientStdio {
  return require('@modelcontextprotocol/sdk/client/stdio.js') as typeof ClientStdio;
}

/** The SDK's Streamable HTTP client transport module. */
export function clientHttp(): typeof ClientHttp {
  return require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof ClientHttp;
}
