/**
 * Which URLs a webhook may be sent to. Only http(s); a receiver on a private, loopback, link-local
 * (cloud metadata), multicast or otherwise reserved address is refused unless the operator allows
 * private URLs (RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS; the tests allow loopback).
 *
 * Invariants:
 * - The check runs when a subscription is saved (a clear 400) and again on every delivery, on the
 *   address actually connected to (`guardedLookup` is the socket's DNS lookup), so a name that
 *   resolves to a public address at creation and to 127.0.0.1 later (DNS rebinding) is still refused.
 * - IPv4-mapped, IPv4-compatible and NAT64 IPv6 addresses are judged by the IPv4 address inside.
 */
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const BLOCKED = new BlockList();
for (const [net, bits] of [
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
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function hextets(address: string): number[] {
  let text = address.toLowerCase().split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string) => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 address stands for, if it is one of the embedding forms. */
function embeddedIPv4(h: number[]): string | null {
  const zeroTo = (n: number) => h.slice(0, n).every((x) => x === 0);
  const mapped = zeroTo(5) && h[5] === 0xffff;
  const compatible = zeroTo(6);
  const nat64 = h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0);
  if (!mapped && !compatible && !nat64) return null;
  const [hi = 0, lo = 0] = [h[6], h[7]];
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/** True for every address a webhook must not reach without the operator's consent. */
export function isPrivateAddress(address: string): boolean {
  switch (isIP(address)) {
    case 4:
      return BLOCKED.check(address, 'ipv4');
    case 6: {
      const v4 = embeddedIPv4(hextets(address));
      return v4 !== null ? BLOCKED.check(v4, 'ipv4') : BLOCKED.check(address, 'ipv6');
    }
    default:
      return true;
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The syntactic check and, for an IP literal, the address check; names are resolved elsewhere. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'must be an http or https URL' };
  }
  const host = hostOf(url);
  if (host === '') return { ok: false, reason: 'must name a host' };
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return { ok: false, reason: 'points at a private or loopback address, which this server does not allow' };
  }
  return { ok: true, url };
}

export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The full check at save time: syntax, then every address the host resolves to. A host that does not
 * resolve now is accepted (DNS may not be live yet); each delivery checks again.
 */
export async function checkWebhookUrlResolved(
  raw: string,
  allowPrivate: boolean,
  lookup: Lookup = systemLookup,
): Promise<UrlVerdict> {
  const verdict = checkWebhookUrl(raw, allowPrivate);
  if (!verdict.ok || allowPrivate || isIP(hostOf(verdict.url)) !== 0) return verdict;
  const addresses = await lookup(hostOf(verdict.url)).catch(() => []);
  return addresses.some(isPrivateAddress)
    ? { ok: false, reason: 'resolves to a private or loopback address, which this server does not allow' }
    : verdict;
}

export class PrivateAddressError extends Error {
  override readonly name = 'PrivateAddressError';
}

/** The socket lookup for deliveries: resolves as usual, then refuses private addresses. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses;
      const refused = !allowPrivate && list.some((a) => isPrivateAddress(a.address));
      if (refused) {
        return callback(new PrivateAddressError(`${hostname} resolves to a private address`), '', 4);
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 4);
      return callback(null, first.address, first.family);
    });
  };
}
