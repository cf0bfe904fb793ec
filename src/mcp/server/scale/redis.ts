import type * as IoRedis from 'ioredis';
import { AgentToolError, errorMessage } from '../../../core';

/** A connection to the shared Redis (ioredis's client). */
export type RedisClient = IoRedis.Redis;

/**
 * Opens a connection to `url`, loading ioredis only now (a server that does not scale
 * out never loads it). Resolves once connected; fails with a message naming the URL.
 * Commands issued while the connection is down wait for it (up to two retries each).
 */
export async function openRedis(url: string, role: string): Promise<RedisClient> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw badUrl(url);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  const { Redis } = require('ioredis') as typeof IoRedis;
  const client = new Redis(url, {
    lazyConnect: true,
    connectionName: `agenttool-${role}`,
    maxRetriesPerRequest: 2,
    // Reconnect with a growing pause, at most a second apart.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  // Connection errors surface on the commands that fail; the event would otherwise throw.
  let last: unknown;
  client.on('error', (error) => (last = error));
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const cause = last ?? error;
    throw new AgentToolError(
      'CONNECTION',
      `mcp: scale-out: cannot reach Redis at ${shown(parsed)}: ${errorMessage(cause)}`,
      { cause },
    );
  }
  return client;
}

/** Closes a connection: politely when it is up, at once otherwise. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'ready') {
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}

function badUrl(url: string): AgentToolError {
  return new AgentToolError(
    'INVALID_TOOL_SET',
    `mcp: scale-out: redisUrl ${JSON.stringify(url)} is not a Redis URL; give e.g. "redis://127.0.0.1:6379"`,
  );
}

// The URL without its password.
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
