import type * as ClientSdk from '@modelcontextprotocol/client';
import type * as ClientStdio from '@modelcontextprotocol/client/stdio';

// The SDK's client takes a fresh process some 35 ms to load on top of the server; an app
// that only serves tools should not pay for it. Each part is loaded where a connection
// first needs it (require caches it after that).
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */

/** The SDK's client: `Client`, the Streamable HTTP transport, auth. */
export function clientSdk(): typeof ClientSdk {
  return require('@modelcontextprotocol/client') as typeof ClientSdk;
}

/** The SDK's stdio client transport. */
export function clientStdio(): typeof ClientStdio {
  return require('@modelcontextprotocol/client/stdio') as typeof ClientStdio;
}
