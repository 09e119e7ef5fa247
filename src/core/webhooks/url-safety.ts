// D27 SSRF protection: a webhook URL must be http(s) and, unless WEBHOOKS_ALLOW_PRIVATE=1, must not reach loopback,
// private, link-local, carrier-grade NAT, multicast, reserved or cloud-metadata addresses, nor an IPv6 address that
// carries one of those IPv4 addresses (IPv4-mapped, NAT64, 6to4, Teredo...). Checked when a subscription
// is written (every address the name resolves to) and again at delivery time, on the very addresses the connection
// uses (safeLookup is the socket's DNS lookup, so a name that re-resolves to a private address is refused too).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { isAbsoluteUrl } from '../../domain/urls.ts';

const blocked = new BlockList();
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
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  // Local-use NAT64 (RFC 8215): its translator is inside the network whatever IPv4 address it is given, and the
  // operator's prefix length (which says where that address sits) cannot be known from here.
  ['64:ff9b:1::', 48],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (`isIP(address) === 6`), a zone index dropped. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[2].split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 addresses an IPv6 address (or an IPv4 one, which carries none) reaches through a transition mechanism:
 * IPv4-compatible ::/96 (`::` and `::1` included, as 0.0.0.0 and 0.0.0.1), IPv4-mapped ::ffff:0:0/96, IPv4-translated
 * ::ffff:0:0:0/96 and NAT64 64:ff9b::/96 (the last 32 bits); 6to4 2002::/16 (bits 16..47); Teredo 2001::/32 (the
 * server, bits 32..63, and the client, the last 32 bits inverted).
 */
export function embeddedIpv4Addresses(address: string): string[] {
  if (isIP(address) !== 6) return [];
  const groups = ipv6Groups(address);
  const zeroFrom = (start: number, end: number) => groups.slice(start, end).every((group) => group === 0);
  const last32Bits = ipv4Of(groups[6], groups[7]);
  if (zeroFrom(0, 6)) return [last32Bits];
  if (zeroFrom(0, 5) && groups[5] === 0xffff) return [last32Bits];
  if (zeroFrom(0, 4) && groups[4] === 0xffff && groups[5] === 0) return [last32Bits];
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeroFrom(2, 6)) return [last32Bits];
  if (groups[0] === 0x2002) return [ipv4Of(groups[1], groups[2])];
  if (groups[0] === 0x2001 && groups[1] === 0)
    return [ipv4Of(groups[2], groups[3]), ipv4Of(groups[6] ^ 0xffff, groups[7] ^ 0xffff)];
  return [];
}

/**
 * Whether `address` (an IP literal, brackets allowed) is one a webhook may not reach by default: a blocked IPv4 or
 * IPv6 address, or an IPv6 address that carries a blocked IPv4 one (it reaches that address). Not an IP address:
 * blocked.
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version === 6) {
    const carried = embeddedIpv4Addresses(bare);
    return carried.length > 0 ? carried.some((ipv4) => blocked.check(ipv4, 'ipv4')) : blocked.check(bare, 'ipv6');
  }
  return true;
}

export class UnsafeUrlError extends Error {}

/** The code of a delivery's error when its host resolves to an address webhooks may not reach. */
export const BLOCKED_ADDRESS = 'ERR_BLOCKED_ADDRESS';

/** The URL if it is an absolute http(s) URL with a host; else an UnsafeUrlError saying why. */
export function parseWebhookUrl(text: string): URL {
  if (!isAbsoluteUrl(text)) throw new UnsafeUrlError('url must be an absolute http or https URL with a host.');
  return new URL(text);
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((entry) => entry.address)),
    );
  });

/**
 * Subscription-time check: the URL's scheme, then (unless `allowPrivate`) every address its host resolves to. Throws
 * UnsafeUrlError with a message for the client.
 */
export async function checkWebhookUrl(
  text: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<URL> {
  const url = parseWebhookUrl(text);
  if (allowPrivate) return url;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new UnsafeUrlError(`url's host ${host} does not resolve.`);
    }
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`url's host ${host} does not resolve.`);
  const bad = addresses.find(isBlockedAddress);
  if (bad !== undefined)
    throw new UnsafeUrlError(
      `url resolves to ${bad}, a loopback, private, link-local or reserved address, which webhooks may not reach.`,
    );
  return url;
}

/**
 * The DNS lookup of a delivery's socket: resolves as usual, then refuses (an error, so the attempt fails and is
 * retried) when any resolved address is blocked.
 */
export const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const bad = addresses.find((entry) => isBlockedAddress(entry.address));
    if (bad)
      return callback(
        Object.assign(new UnsafeUrlError(`${hostname} resolves to ${bad.address}, which webhooks may not reach`), {
          code: BLOCKED_ADDRESS,
        }),
        '',
        0,
      );
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};
