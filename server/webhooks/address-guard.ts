// An endpoint cannot be turned against the site's own network: with WEBHOOKS_ALLOW_PRIVATE off,
// a webhook goes only over https to public addresses. The check is made on the addresses the
// connection is about to use (the socket's `lookup`), not on an earlier answer, so a DNS name that
// resolves to something else between a check and the connection cannot slip through.
import dns from 'node:dns';
import net from 'node:net';

/** Resolves every address of a name (dns.lookup with `all`); injectable for tests. */
export type ResolveAll = (
  hostname: string,
  callback: (err: Error | null, addresses: dns.LookupAddress[]) => void,
) => void;

export const resolveAll: ResolveAll = (hostname, callback) =>
  dns.lookup(hostname, { all: true }, callback);

/**
 * Loopback, private, link-local, shared, documentation, multicast and reserved ranges. IPv6 forms
 * that carry an IPv4 address are refused whole, apart from IPv4-mapped ones (`::ffff:0:0/96`),
 * which isPublicAddress judges as the IPv4 address they carry.
 */
const NOT_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  // IPv4-compatible (deprecated), with the unspecified and the loopback address.
  ['::', 96],
  // IPv4-translated (RFC 2765): for translators, never a destination on the Internet.
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return isPublicAddress(dotted[1]);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class AddressNotAllowedError extends Error {
  constructor(hostname: string) {
    super(`${hostname} is not a public address (WEBHOOKS_ALLOW_PRIVATE is off)`);
    this.name = 'AddressNotAllowedError';
  }
}

/**
 * A socket `lookup` that resolves with `resolve` and, unless `allowPrivate`, refuses the whole
 * name when any of its addresses is not public: no connection is attempted.
 */
export function guardedLookup(resolve: ResolveAll, allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, found) => {
      if (err) return callback(err, '', 0);
      const addresses = found.filter((a) => !options.family || a.family === options.family);
      if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), '', 0);
      if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
        return callback(new AddressNotAllowedError(hostname), '', 0);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
