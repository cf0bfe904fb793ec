import { BlockList, isIP } from 'node:net';
import { AgentToolError } from '../../../core';

/**
 * Which proxies in front of the server are trusted to say who the client is
 * (`X-Forwarded-For`), as Express's `trust proxy` setting says it: `false` (default):
 * none, the client is the connection's peer; `true`: all, the client is the left-most
 * address of the header (only safe when the proxy in front replaces the header a client
 * sends); a number `n`: the `n` hops nearest the server, so the client is the `n`-th
 * address from the right; a list of addresses and CIDR ranges (`10.0.0.0/8`,
 * `fd00::/8`): the peers in it, so the client is the right-most address not in it.
 */
export type TrustProxy = boolean | number | readonly string[];

/** How the endpoint finds a request's client address; made once from the option. */
export type AddressFinder = (peer: string | undefined, forwardedFor: string | null) => string;

/** The address of a request whose peer is unknown (a web request built in process). */
export const UNKNOWN_ADDRESS = 'unknown';

/** A finder for `trust`; throws `INVALID_OPTIONS` for a setting it cannot use. */
export function addressFinder(trust: TrustProxy | undefined): AddressFinder {
  if (trust === undefined || trust === false) return (peer) => normalAddress(peer);
  if (trust === true) {
    return (peer, forwarded) => normalAddress(hops(forwarded)[0] ?? peer);
  }
  if (typeof trust === 'number') {
    if (!Number.isInteger(trust) || trust < 0) throw invalid(`got ${trust}`);
    return (peer, forwarded) => {
      const chain = [...hops(forwarded), peer ?? UNKNOWN_ADDRESS];
      return normalAddress(chain[Math.max(0, chain.length - 1 - trust)]);
    };
  }
  if (!Array.isArray(trust)) throw invalid(`got ${typeof trust}`);
  const trusted = blockListOf(trust);
  return (peer, forwarded) => {
    const chain = [...hops(forwarded), peer ?? UNKNOWN_ADDRESS];
    for (let i = chain.length - 1; i > 0; i--) {
      if (!isTrusted(trusted, chain[i]!)) return normalAddress(chain[i]);
    }
    return normalAddress(chain[0]);
  };
}

/**
 * Whether a connection from `peer` may be a proxy's `trust` believes, which carries many
 * clients: never for `false` or 0 hops, always for `true` or more hops (any peer may be
 * the proxy), and for a list when the peer is in it. Throws `INVALID_OPTIONS` as
 * {@link addressFinder} does.
 */
export function proxyPeers(trust: TrustProxy | undefined): (peer: string | undefined) => boolean {
  if (trust === undefined || trust === false) return () => false;
  if (trust === true) return () => true;
  if (typeof trust === 'number') {
    if (!Number.isInteger(trust) || trust < 0) throw invalid(`got ${trust}`);
    return () => trust > 0;
  }
  if (!Array.isArray(trust)) throw invalid(`got ${typeof trust}`);
  const trusted = blockListOf(trust);
  return (peer) => peer !== undefined && isTrusted(trusted, peer);
}

/** The addresses of `X-Forwarded-For`, left (the client) to right (the nearest proxy). */
function hops(header: string | null): string[] {
  if (header === null) return [];
  return header
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
}

/**
 * An address as the shares count it: IPv4 as is (an IPv4-mapped IPv6 address too), IPv6
 * by its /64 network, which one subscriber holds whole (counting single addresses
 * would give such a client 2^64 shares); anything else as it came, bounded.
 */
export function normalAddress(address: string | undefined): string {
  if (address === undefined || address === '') return UNKNOWN_ADDRESS;
  let text = address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped !== null) return mapped[1]!;
  if (isIP(text) === 4) return text;
  if (isIP(text) === 6) return `${expandIpv6(text).slice(0, 4).join(':')}::/64`;
  return text.slice(0, 64);
}

/** The eight groups of an IPv6 address, in lower-case hex without leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) as two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((group) => parseInt(group, 16).toString(16));
}

function blockListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    if (typeof entry !== 'string') throw invalid(`the list holds ${typeof entry}`);
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw invalid(`${JSON.stringify(entry)} is not an IP address or CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw invalid(`${JSON.stringify(entry)} has no valid prefix length`);
    }
    list.addSubnet(address, bits, type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const bare = mapped?.[1] ?? address;
  const family = isIP(bare);
  if (family === 0) return false;
  return list.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

function invalid(detail: string): AgentToolError {
  return new AgentToolError(
    'INVALID_OPTIONS',
    `mcp: http: trustProxy must be true, false, a number of hops (0 or more) or a list of addresses and CIDR ranges; ${detail}`,
  );
}
