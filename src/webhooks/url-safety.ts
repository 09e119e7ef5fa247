// D27 SSRF protection: a webhook URL must be http(s) and, unless WEBHOOKS_ALLOW_PRIVATE=1, must not reach loopback,
// private, link-local, carrier-grade NAT, multicast, reserved or cloud-metadata addresses. Checked when a subscription
// is written (every address the name resolves to) and again at delivery time, on the very addresses the connection
// uses (safeLookup is the socket's DNS lookup, so a name that re-resolves to a private address is refused too).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { isAbsoluteUrl } from '../domain/urls.ts';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** An IPv4 address embedded in an IPv6 one (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, hex forms), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const match = /^(?:::ffff:(?:0:)?|64:ff9b::)(.+)$/.exec(lower);
  if (!match) return undefined;
  const rest = match[1];
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether `address` (an IP literal) is one a webhook may not reach by default. Not an IP address: blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version === 6) {
    const v4 = embeddedIpv4(bare);
    return v4 !== undefined ? blocked.check(v4, 'ipv4') : blocked.check(bare, 'ipv6');
  }
  return true;
}

export class UnsafeUrlError extends Error {}

/** The URL if it is an absolute http(s) URL with a host; else an UnsafeUrlError saying why. */
export function parseWebhookUrl(text: string): URL {
  if (!isAbsoluteUrl(text)) throw new UnsafeUrlError('url must be an absolute http or https URL with a host.');
  return new URL(text);
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) => new Promise((resolve, reject) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address))));
});

/**
 * Subscription-time check: the URL's scheme, then (unless `allowPrivate`) every address its host resolves to. Throws
 * UnsafeUrlError with a message for the client.
 */
export async function checkWebhookUrl(text: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<URL> {
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
  if (bad !== undefined) throw new UnsafeUrlError(`url resolves to ${bad}, a loopback, private, link-local or reserved address, which webhooks may not reach.`);
  return url;
}

/**
 * The DNS lookup of a delivery's socket: resolves as usual, then refuses (an error, so the attempt fails and is
 * retried) when any resolved address is blocked.
 */
export const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as Array<{ address: string; family: number }>;
    const bad = list.find((entry) => isBlockedAddress(entry.address));
    if (bad) return callback(new UnsafeUrlError(`${hostname} resolves to ${bad.address}, which webhooks may not reach`), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
