/**
 * Which URLs a webhook may be sent to. Only http(s); a receiver on a private, loopback, link-local
 * (cloud metadata), multicast or otherwise reserved address is refused unless the operator allows
 * private URLs (RAILYARD_WEBHOOK_ALLOW_PRIVATE_URLS; the tests allow loopback).
 *
 * Invariants:
 * - The check runs when a subscription is saved (a clear 400) and again on every delivery, on the
 *   address actually connected to (`guardedLookup` is the socket's DNS lookup), so a name that
 *   resolves to a public address at creation and to 127.0.0.1 later (DNS rebinding) is still refused.
 * - An IPv6 address that carries an IPv4 address at a known place is judged by that IPv4 address:
 *   mapped (::ffff:0:0/96), SIIT translated (::ffff:0:0:0/96), compatible (::/96), well-known NAT64
 *   (64:ff9b::/96) and 6to4 (2002::/16, the relay address). Forms whose IPv4 address cannot be known
 *   here, local-use NAT64 (64:ff9b:1::/48) and Teredo (2001::/32), are refused outright.
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

const ipv4Of = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');

/**
 * How an IPv6 address is judged. `embeds`: it stands for an IPv4 address at a known place, judged by
 * the IPv4 policy. `opaque`: it may carry an IPv4 address this server cannot recover (the prefix
 * length of a local NAT64 is the operator's choice; a Teredo address hides the server's address
 * behind a relay), so it is refused outright. `native`: an IPv6 address of its own.
 */
type Ipv6Reading = { kind: 'embeds'; ipv4: string } | { kind: 'opaque' } | { kind: 'native' };

function readIpv6(h: number[]): Ipv6Reading {
  const zero = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  const [h0 = 0, h1 = 0, h2 = 0, , h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  // ::ffff:0:0/96 (mapped), ::ffff:0:0:0/96 (SIIT translated), ::/96 (compatible, deprecated).
  if (zero(0, 5) && h5 === 0xffff) return { kind: 'embeds', ipv4: ipv4Of(h6, h7) };
  if (zero(0, 4) && h4 === 0xffff && h5 === 0) return { kind: 'embeds', ipv4: ipv4Of(h6, h7) };
  if (zero(0, 6)) return { kind: 'embeds', ipv4: ipv4Of(h6, h7) };
  // 64:ff9b::/96, the well-known NAT64 prefix: the IPv4 address is the last 32 bits.
  if (h0 === 0x64 && h1 === 0xff9b && zero(2, 6)) return { kind: 'embeds', ipv4: ipv4Of(h6, h7) };
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215), whatever the rest.
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 1) return { kind: 'opaque' };
  // 2002::/16, 6to4: the relay's IPv4 address is bits 16-47.
  if (h0 === 0x2002) return { kind: 'embeds', ipv4: ipv4Of(h1, h2) };
  // 2001::/32, Teredo.
  if (h0 === 0x2001 && h1 === 0) return { kind: 'opaque' };
  return { kind: 'native' };
}

function isPrivateIpv6(address: string): boolean {
  const reading = readIpv6(hextets(address));
  switch (reading.kind) {
    case 'embeds':
      return BLOCKED.check(reading.ipv4, 'ipv4');
    case 'opaque':
      return true;
    case 'native':
      return BLOCKED.check(address, 'ipv6');
  }
}

/** True for every address a webhook must not reach without the operator's consent. */
export function isPrivateAddress(address: string): boolean {
  switch (isIP(address)) {
    case 4:
      return BLOCKED.check(address, 'ipv4');
    case 6:
      return isPrivateIpv6(address);
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

type Resolved = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/** DNS as the socket asked for it, or through `lookup` (tests name a resolver of their own). */
function resolveAll(
  hostname: string,
  options: dns.LookupOptions,
  lookup: Lookup | undefined,
  done: Resolved,
) {
  if (lookup === undefined) {
    dns.lookup(hostname, { ...options, all: true }, done);
    return;
  }
  lookup(hostname).then(
    (list) => {
      const addresses = list
        .map((address) => ({ address, family: isIP(address) }))
        .filter((a) => a.family !== 0 && (!options.family || a.family === options.family));
      // Out of the promise chain: an exception in the socket's callback must not become a rejection.
      process.nextTick(() => done(null, addresses));
    },
    (err: unknown) => process.nextTick(() => done(err instanceof Error ? err : new Error(String(err)), [])),
  );
}

/**
 * The socket lookup for deliveries: resolves as usual (or through `lookup`), then refuses the
 * connection when any address is private, before a socket is opened to it.
 */
export function guardedLookup(allowPrivate: boolean, lookup?: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, options, lookup, (err, list) => {
      if (err) return callback(err, '', 4);
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
