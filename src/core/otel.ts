// The OpenTelemetry API, loaded lazily. Kept out of core's index: every entry's
// declarations reach that index, and this file's declarations name `@opentelemetry/api`,
// an optional peer, which a project compiled with `skipLibCheck: false` and without it
// could not resolve. The telemetry code (executor, mcp) imports this file by path, and its
// own declarations are reached by no entry (test/package/install.test.ts checks).
import type * as OtelApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the lazy loader below hands it out. */
export type Otel = typeof OtelApi;

/**
 * Where every copy of `@opentelemetry/api` 1.x keeps what was registered (a tracer or
 * meter provider, a propagator, a context manager): `globalThis[Symbol.for(...)]`, an
 * object with a member per kind. Reading it tells whether OpenTelemetry is set up in
 * this process without loading the API, so an app that does not use OpenTelemetry never
 * loads it (test/telemetry checks the key against the installed API).
 */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

interface Registered {
  readonly trace?: unknown;
  readonly metrics?: unknown;
  readonly propagation?: unknown;
}

const holder = globalThis as unknown as Record<symbol, Registered | undefined>;

/** Unloaded; `null` once the API was looked for and is not installed. */
let loaded: Otel | null | undefined;

function load(): Otel | undefined {
  if (loaded === undefined) {
    try {
      /* eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only once something registered a provider */
      loaded = require('@opentelemetry/api') as Otel;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/**
 * The OpenTelemetry API when a tracer provider is registered in this process, else
 * undefined (nothing registered, or the API not installed). Cheap: one property read
 * while nothing is registered, so it is asked once per batch or request.
 */
export function tracingApi(): Otel | undefined {
  return holder[GLOBAL_KEY]?.trace === undefined ? undefined : load();
}

/** The OpenTelemetry API when a meter provider is registered in this process, else undefined. */
export function meteringApi(): Otel | undefined {
  return holder[GLOBAL_KEY]?.metrics === undefined ? undefined : load();
}

/** The OpenTelemetry API when a propagator is registered in this process, else undefined. */
export function propagationApi(): Otel | undefined {
  return holder[GLOBAL_KEY]?.propagation === undefined ? undefined : load();
}
