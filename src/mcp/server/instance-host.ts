import { type Implementation } from '@modelcontextprotocol/server';
import {
  CallTracker,
  countLimit,
  DEFAULT_PROGRESS_BUDGET_BYTES,
  keepaliveInterval,
  type RoundTrips,
} from './calls';
import { DEFAULT_LIST_PAGE_SIZE, ResourceFollows, SubscriberShares } from './primitives';
import { type ScaleOut } from './scale';
import { type ServedSet } from './served-set';
import {
  DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT,
  type McpServerOptions,
} from './server-options';
import { type ErrorReporter } from './session';
import { type InstanceHost } from './sessions';
import { Tasks } from './tasks';
import { AgentToolError } from '../../core';

/** What a server makes before its instances' host: see {@link instanceHost}. */
export interface HostParts {
  readonly report: ErrorReporter;
  readonly trips: RoundTrips;
  readonly scale: ScaleOut | undefined;
  /** What is served; read per request, since a swap changes it. */
  readonly served: ServedSet;
  /** How many entries one page of a prompts or resources list holds (see {@link listPageSizeOf}). */
  readonly listPageSize: number;
  /** Tells this instance's subscribers that a followed resource changed. */
  readonly resourceChanged: (uri: string) => void;
}

/** The options' `listPageSize`, checked: throws, saying so, unless a whole number of at least 1. */
export function listPageSizeOf(options: McpServerOptions): number {
  const size = options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new AgentToolError(
      'INVALID_OPTIONS',
      `mcp: listPageSize must be a whole number of at least 1, got ${String(size)}`,
    );
  }
  return size;
}

/**
 * What every SDK instance of a server shares, from its options: its name, limits,
 * round trips, calls, tasks, and what is served now. Throws when a count limit is out of
 * range, saying which.
 */
export function instanceHost(options: McpServerOptions, parts: HostParts): InstanceHost {
  const { report, trips, scale, served, listPageSize } = parts;
  const info: Implementation = {
    name: options.name ?? 'agenttool',
    version: options.version ?? '0',
  };
  return {
    info,
    instructions: options.instructions,
    get recorder() {
      return served.recorder;
    },
    report,
    progressBudget: options.progressBudgetBytes ?? DEFAULT_PROGRESS_BUDGET_BYTES,
    progressKeepalive: keepaliveInterval(options.progressKeepaliveMs),
    trips,
    calls: new CallTracker(),
    tasks: new Tasks(options.tasks, report, scale?.taskPlace()),
    localAuth: options.localAuth,
    listChanged: () => options.listChanged ?? served.mayChange,
    primitivesMayChange: () => served.primitivesMayChange,
    definitions: () => served.definitions(),
    servedTools: () => served.servedTools(),
    served: (name) => served.served(name),
    get catalog() {
      return served.catalog;
    },
    listPageSize,
    subscriptionLimits: {
      perSession: countLimit(
        'maxSubscriptionsPerSession',
        options.maxSubscriptionsPerSession,
        DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
      ),
      uriBytes: countLimit(
        'maxSubscriptionUriBytes',
        options.maxSubscriptionUriBytes,
        DEFAULT_MAX_SUBSCRIPTION_URI_BYTES,
      ),
      perSubject: new SubscriberShares(
        countLimit(
          'maxSubscriptionsPerSubject',
          options.maxSubscriptionsPerSubject,
          DEFAULT_MAX_SUBSCRIPTIONS_PER_SUBJECT,
        ),
      ),
    },
    // Each instance follows for its own subscribers: a follow's change stays here.
    follows: new ResourceFollows(parts.resourceChanged, report),
  };
}
