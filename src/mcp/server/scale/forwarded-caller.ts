import { nodeCrypto } from '../../../core';

/**
 * Names the client of a request one instance forwards to another, for the receiving
 * instance's per-caller shares: `<instance>.<unix seconds>.<address>.<signature>`, the
 * address and the signature in base64url. Believed only with the deployment's signature.
 */
export const FORWARDED_CALLER_HEADER = 'x-agenttool-forwarded-caller';

/** How far a forwarded caller's time may be from the receiver's clock, in seconds. */
export const FORWARDED_CALLER_SKEW_S = 60;

/** What the key signs forwarded callers under, apart from what else it signs. */
const PURPOSE = 'agenttool forwarded caller v1';

const INSTANCE = /^[A-Za-z0-9_-]{1,64}$/;
const SECONDS = /^\d{1,12}$/;

/**
 * Signs and checks the client address a forwarded request carries
 * ({@link FORWARDED_CALLER_HEADER}) with a key derived from the instances' shared key
 * (`requestStateKey`, HMAC-SHA256): a client that writes the header itself cannot sign it,
 * so the receiver counts it by its own address. node:crypto loads on first use.
 */
export class ForwardedCallers {
  readonly #secret: string | Uint8Array;
  readonly #instance: string;
  #key: Buffer | undefined;

  constructor(secret: string | Uint8Array, instance: string) {
    this.#secret = secret;
    this.#instance = instance;
  }

  /** The header value naming `address` as the client of a request this instance forwards. */
  sign(address: string, now = Date.now()): string {
    const seconds = String(Math.floor(now / 1000));
    const encoded = Buffer.from(address, 'utf8').toString('base64url');
    return `${this.#instance}.${seconds}.${encoded}.${this.#mac(this.#instance, seconds, encoded)}`;
  }

  /**
   * The client address a genuine header names: signed by an instance of the deployment,
   * within {@link FORWARDED_CALLER_SKEW_S} of now. Undefined for anything else (none,
   * malformed, forged, altered, stale).
   */
  read(value: string | null, now = Date.now()): string | undefined {
    if (value === null) return undefined;
    const parts = value.split('.');
    if (parts.length !== 4) return undefined;
    const [instance, seconds, encoded, mac] = parts as [string, string, string, string];
    if (!INSTANCE.test(instance) || !SECONDS.test(seconds)) return undefined;
    if (Math.abs(Number(seconds) - now / 1000) > FORWARDED_CALLER_SKEW_S) return undefined;
    const expected = Buffer.from(this.#mac(instance, seconds, encoded), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected)) {
      return undefined;
    }
    const address = Buffer.from(encoded, 'base64url').toString('utf8');
    return address === '' ? undefined : address;
  }

  #mac(instance: string, seconds: string, encoded: string): string {
    const crypto = nodeCrypto();
    this.#key ??= crypto.createHmac('sha256', this.#secret).update(PURPOSE).digest();
    return crypto
      .createHmac('sha256', this.#key)
      .update(`${instance}.${seconds}.${encoded}`)
      .digest('base64url');
  }
}
