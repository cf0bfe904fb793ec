import { type HttpServeOptions } from '../http';

/** The addresses a listener binds without `allowedHosts` (any other needs the list). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set([
  '127.0.0.1',
  'localhost',
  '::1',
  '[::1]',
]);

/** Loopback names as they appear in a `Host` header or an origin's host. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The DNS-rebinding check of both legs of an HTTP endpoint. `Host` must be an allowed
 * host: by default the loopback names with the listener's port (a client writes the
 * authority it connected to, so another port is not this listener; without the port
 * only on port 80), or on any port for a mounted handler, whose port is unknown; in
 * `allowedHosts`, a name without a port allows it on any port. `Origin`, when sent, must
 * be one of `allowedOrigins`, compared whole, or without that list any http(s) origin on
 * a loopback name, whatever its port (a local web client runs on a port of its own), as
 * the SDK's `localhostAllowedOrigins()` allows.
 */
export class RebindingGuard {
  readonly #hosts: ReadonlySet<string>;
  /** True when a name in #hosts without a port allows it on any port. */
  readonly #anyPort: boolean;
  readonly #origins: ReadonlySet<string> | undefined;

  /** `port`: the listener's, when it has one (a mounted handler knows none). */
  constructor(
    options: Pick<HttpServeOptions, 'allowedHosts' | 'allowedOrigins'>,
    port: number | undefined,
  ) {
    if (options.allowedHosts !== undefined) {
      this.#hosts = lower(options.allowedHosts);
      this.#anyPort = true;
    } else if (port === undefined) {
      this.#hosts = lower(LOOPBACK_NAMES);
      this.#anyPort = true;
    } else {
      const withPort = LOOPBACK_NAMES.map((n) => `${n}:${port}`);
      // A client leaves the default port out of Host.
      this.#hosts = lower(port === 80 ? [...LOOPBACK_NAMES, ...withPort] : withPort);
      this.#anyPort = false;
    }
    if (options.allowedOrigins !== undefined) this.#origins = lower(options.allowedOrigins);
  }

  /** Why a request with these headers is refused (403), or undefined when it may pass. */
  refusal(headers: Headers, urlHost: string): string | undefined {
    const host = (headers.get('host') ?? urlHost).toLowerCase();
    if (!(this.#hosts.has(host) || (this.#anyPort && anyPortAllows(this.#hosts, host)))) {
      return `Invalid Host header: ${host}`;
    }
    const origin = headers.get('origin');
    if (origin === null) return undefined;
    const allowed =
      this.#origins === undefined
        ? isLoopbackOrigin(origin)
        : this.#origins.has(origin.toLowerCase());
    return allowed ? undefined : `Invalid Origin header: ${origin}`;
  }
}

/** An http(s) origin whose host is a loopback name, on any port. */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An Origin is scheme://host[:port] and nothing more.
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    LOOPBACK_NAMES.includes(url.hostname) &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    !origin.endsWith('/')
  );
}

function lower(values: readonly string[]): ReadonlySet<string> {
  return new Set(values.map((v) => v.toLowerCase()));
}

/** True when `host`'s name, without its port, is allowed (on any port). */
function anyPortAllows(allowed: ReadonlySet<string>, host: string): boolean {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return name !== undefined && allowed.has(name);
}
