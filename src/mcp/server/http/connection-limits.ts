import { AgentToolError } from '../../../core';
import { countLimit, fairShare } from '../calls';
import { callerName, RETRY_AFTER_SECONDS } from './fair-shares';
import { type BodyAllowance, BodyBudget } from './body-budget';
import { AnswerBudget } from './answer-writes';
import { jsonRpcError } from './http-io';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type HttpServeOptions,
} from './http-options';

// What the options say of connections and the requests on them, checked: how many are
// held, their timeouts, and the budget of request bodies read at once.

/** The bytes of bodies read at once by default: 64 MiB, at least four largest bodies. */
const DEFAULT_BODIES_IN_FLIGHT = 64 * 1024 * 1024;

/**
 * The budget of request bodies the options set (`maxBodyBytesInFlight`, and each
 * caller's share of it, `maxBodyBytesInFlightPerSubject`), checked.
 */
export function bodyBudgetOf(options: HttpServeOptions, limit: number): BodyBudget {
  const budget = countLimit(
    'maxBodyBytesInFlight',
    options.maxBodyBytesInFlight,
    Math.max(DEFAULT_BODIES_IN_FLIGHT, 4 * limit),
  );
  if (budget < limit) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: http: maxBodyBytesInFlight (${budget}) must be at least maxBodyBytes (${limit}): a body of the largest size could never be read`,
    );
  }
  // A fair share, but never less than one body of the largest size.
  const share = countLimit(
    'maxBodyBytesInFlightPerSubject',
    options.maxBodyBytesInFlightPerSubject,
    Math.min(budget, Math.max(fairShare(budget), limit)),
  );
  if (share < limit) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: http: maxBodyBytesInFlightPerSubject (${share}) must be at least maxBodyBytes (${limit}): a body of the largest size could never be read`,
    );
  }
  return new BodyBudget(budget, Math.min(share, budget));
}

/**
 * The refusal of a request whose body `allowance` had no room for, its connection closed:
 * past the caller's share 429, naming the caller; past the endpoint's budget 503.
 */
export function overBudget(allowance: BodyAllowance): Response {
  const budget = allowance.budget;
  if (allowance.refused === 'share') {
    return jsonRpcError(
      429,
      -32000,
      `Too Many Requests: the ${callerName(allowance.caller)} is sending its share of ${budget.share} bytes of request bodies at once (maxBodyBytesInFlightPerSubject); finish or close one, or try again later`,
      { Connection: 'close', 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
  return jsonRpcError(
    503,
    -32000,
    `Service unavailable: the server is reading its limit of ${budget.limit} bytes of request bodies at once (maxBodyBytesInFlight); try again later`,
    { Connection: 'close', 'Retry-After': '1' },
  );
}

/** The bytes of unread answers held at once by default: 256 MiB. */
const DEFAULT_UNREAD_ANSWERS = 256 * 1024 * 1024;

/**
 * The budget of answers clients have not read (`maxUnreadAnswerBytes`,
 * `maxUnreadAnswerBytesPerSubject`), checked.
 */
export function answerBudgetOf(options: HttpServeOptions): AnswerBudget {
  const limit = countLimit(
    'maxUnreadAnswerBytes',
    options.maxUnreadAnswerBytes,
    DEFAULT_UNREAD_ANSWERS,
  );
  const share = countLimit(
    'maxUnreadAnswerBytesPerSubject',
    options.maxUnreadAnswerBytesPerSubject,
    fairShare(limit),
  );
  return new AnswerBudget(limit, Math.min(share, limit));
}

/** The connection and request timeouts the options set, checked, and the keep-alive hint. */
export function keepAliveOf(options: HttpServeOptions): {
  readonly timeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly hintSeconds: number;
} {
  const timeoutMs = countLimit(
    'keepAliveTimeoutMs',
    options.keepAliveTimeoutMs,
    DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  );
  const requestTimeoutMs = countLimit(
    'requestTimeoutMs',
    options.requestTimeoutMs,
    DEFAULT_REQUEST_TIMEOUT_MS,
  );
  return {
    timeoutMs,
    // Node refuses headers that may take longer than the whole request.
    headersTimeoutMs: Math.min(
      requestTimeoutMs,
      countLimit('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS),
    ),
    requestTimeoutMs,
    // Half the server's timeout at most, and 5 s at most: a client that honours it lets
    // an idle connection go long before the server would.
    hintSeconds: Math.max(1, Math.min(5, Math.floor(timeoutMs / 2000))),
  };
}

/** The connections a listener holds at once: all, and of one client address. */
export interface ConnectionLimits {
  readonly total: number;
  readonly perAddress: number;
}

/** The connections a listener holds at once, all and of one client address, checked. */
export function connectionLimitsOf(options: HttpServeOptions): ConnectionLimits {
  const total = countLimit('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS);
  return {
    total,
    perAddress: countLimit(
      'maxConnectionsPerAddress',
      options.maxConnectionsPerAddress,
      fairShare(total),
    ),
  };
}
