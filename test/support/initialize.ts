/**
 * A 2025-era host's `initialize` request (id 1), as the tests that speak raw JSON-RPC
 * send it: over stdio, one line of it; over HTTP, its JSON as the body.
 */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'host', version: '1' },
  },
} as const;
