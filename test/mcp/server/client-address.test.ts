/**
 * Who a request counts as, without authorization: its client address, as `trustProxy`
 * lets `X-Forwarded-For` name it (Express's `trust proxy` rules), an IPv6 client by its
 * /64. Unit tests of the finder the endpoint uses.
 */
import { addressFinder, normalAddress } from '../../../src/mcp/server/http/client-address';

describe('normalAddress', () => {
  test.each([
    ['10.1.2.3', '10.1.2.3'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::7', '2001:db8:1:2::/64'],
    ['[2001:db8::1]', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (given, counted) => {
    expect(normalAddress(given)).toBe(counted);
  });
});

describe('addressFinder', () => {
  const chain = '203.0.113.7, 10.0.0.2, 10.0.0.3';

  test('trusting no proxy (the default), the peer is the client; the header is not believed', () => {
    expect(addressFinder(undefined)('10.0.0.9', chain)).toBe('10.0.0.9');
    expect(addressFinder(false)('10.0.0.9', chain)).toBe('10.0.0.9');
  });

  test('trusting every proxy, the left-most address is the client', () => {
    expect(addressFinder(true)('10.0.0.9', chain)).toBe('203.0.113.7');
    expect(addressFinder(true)('10.0.0.9', null)).toBe('10.0.0.9');
  });

  test.each([
    [0, '10.0.0.9'],
    [1, '10.0.0.3'],
    [2, '10.0.0.2'],
    [3, '203.0.113.7'],
    [9, '203.0.113.7'],
  ])('trusting %i hops, the client is %s', (hops, client) => {
    expect(addressFinder(hops)('10.0.0.9', chain)).toBe(client);
  });

  test('trusting a list, the right-most address not in it is the client', () => {
    const find = addressFinder(['10.0.0.0/24', '::1']);
    expect(find('10.0.0.9', chain)).toBe('203.0.113.7');
    expect(find('10.0.0.9', '198.51.100.4, 203.0.113.7, 10.0.0.3')).toBe('203.0.113.7');
    // A peer outside the list is the client, whatever it forwards.
    expect(find('192.0.2.50', chain)).toBe('192.0.2.50');
    expect(find('::1', '2001:db8:5::9')).toBe('2001:db8:5:0::/64');
    expect(find('::ffff:10.0.0.9', '198.51.100.4')).toBe('198.51.100.4');
  });

  test.each([
    [-1, 'a number of hops (0 or more)'],
    [1.5, 'a number of hops (0 or more)'],
    [['10.0.0.0/33'], 'has no valid prefix length'],
    [['proxy.example.com'], 'is not an IP address or CIDR range'],
  ])('%j is refused, saying what it must be', (trust, words) => {
    expect(() => addressFinder(trust as never)).toThrow(words);
  });
});
