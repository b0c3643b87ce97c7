/**
 * Which addresses a network-on run may reach (issue 24): public addresses, and nothing of the
 * neighbourhood. As kernel policy-routing rules (`ip rule`, iproute2) in the run's own network
 * namespace, set from outside the sandbox before the command starts (sandbox-network.ts says by whom):
 *
 *   prio 1000+  to <operator allow-list entry>            lookup main   (RAILYARD_SANDBOX_NETWORK_ALLOW)
 *   prio 1500+  to <resolver of /etc/resolv.conf> port 53 lookup main   (DNS keeps working)
 *   prio 2000+  to <closed range>                         prohibit      (connect() fails with EACCES)
 *
 * Closed: loopback, the private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), link-local
 * (169.254/16, the cloud metadata service; fe80::/10), multicast and the other non-public ranges below,
 * the subnets of this machine's own interfaces (its neighbours, its gateway) and `deny` (the API's
 * addresses). The kernel's rule 0 (`lookup local`) stays first: the namespace's own addresses (it carries
 * the host's) answer from inside it, never from the host. A packet that a rule prohibits is never sent.
 *
 * Rules match the destination only, so the default route through a gateway in a closed range still
 * carries public traffic; a connection to the gateway itself is closed.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Not public (IANA special-purpose registries): a run's connection to these is refused. */
export const CLOSED_V4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // carrier-grade NAT (RFC 6598), cloud-internal in some clouds
  '127.0.0.0/8', // loopback (the namespace's own answers first, see the header)
  '169.254.0.0/16', // link-local: cloud metadata at 169.254.169.254
  '172.16.0.0/12', // RFC 1918
  '192.0.0.0/24', // IETF protocol assignments
  '192.168.0.0/16', // RFC 1918
  '198.18.0.0/15', // benchmarking, used internally
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
] as const;

export const CLOSED_V6 = [
  '::/127', // unspecified and loopback
  '::ffff:0:0/96', // IPv4-mapped (routed as IPv4 anyway)
  '64:ff9b::/96', // NAT64: would reach private IPv4 through a translator
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard
  '2001::/32', // Teredo: embeds IPv4
  '2002::/16', // 6to4: embeds IPv4
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
] as const;

export interface AddressRange {
  family: 4 | 6;
  /** `address/prefix`, as `ip rule` takes it. */
  cidr: string;
}

/** The rules for one run, one `ip -batch` text per family (empty when there is nothing to say). */
export interface AddressRules {
  v4: string;
  v6: string;
}

/** `address` or `address/prefix`, IPv4 or IPv6; null when it is neither. */
export function parseRange(text: string): AddressRange | null {
  const [address = '', prefix, ...rest] = text.trim().split('/');
  const family = isIP(address);
  if (rest.length > 0 || (family !== 4 && family !== 6)) return null;
  const max = family === 4 ? 32 : 128;
  if (prefix === undefined) return { family, cidr: `${address}/${max}` };
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return null;
  return { family, cidr: `${address}/${Number(prefix)}` };
}

function range(cidr: string): AddressRange {
  const found = parseRange(cidr);
  if (!found) throw new Error(`not an address range: ${cidr}`);
  return found;
}

/** The subnets of this machine's interfaces other than loopback: its neighbours and its gateway. */
export function ownSubnets(): AddressRange[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && a.cidr !== null)
    .map((a) => range(a!.cidr!));
}

/** The resolvers /etc/resolv.conf names (as the run sees it: the sandbox binds the same file). */
export function nameservers(resolvConf = '/etc/resolv.conf'): AddressRange[] {
  let text = '';
  try {
    text = readFileSync(resolvConf, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .map((address) => (address ? parseRange(address.replace(/%.*$/, '')) : null))
    .filter((r): r is AddressRange => r !== null);
}

export interface AddressPolicy {
  /** Opened in front of every closed range: the operator's allow-list. */
  allow: readonly AddressRange[];
  /** Closed besides CLOSED_V4/CLOSED_V6 and the subnets: the API's addresses. */
  deny: readonly AddressRange[];
  /** Reached on port 53 only, udp and tcp: the resolvers. */
  dns: readonly AddressRange[];
  /** This machine's subnets, closed. */
  subnets: readonly AddressRange[];
}

/** The current policy: the machine's resolvers and subnets are read now (they change with DHCP). */
export function currentPolicy(allow: readonly AddressRange[], deny: readonly AddressRange[]): AddressPolicy {
  return { allow, deny, dns: nameservers(), subnets: ownSubnets() };
}

/** The `ip -batch` lines of `policy`, per family (see the header for the order). */
export function addressRules(policy: AddressPolicy): AddressRules {
  const lines: Record<4 | 6, string[]> = { 4: [], 6: [] };
  const add = (ranges: readonly AddressRange[], start: number, action: (cidr: string) => string[]) => {
    const next: Record<4 | 6, number> = { 4: start, 6: start };
    for (const r of ranges)
      for (const line of action(r.cidr)) lines[r.family].push(`rule add prio ${next[r.family]++} ${line}`);
  };
  add(policy.allow, 1000, (cidr) => [`to ${cidr} lookup main`]);
  add(policy.dns, 1500, (cidr) =>
    ['udp', 'tcp'].map((proto) => `to ${cidr} ipproto ${proto} dport 53 lookup main`),
  );
  const closed = [...CLOSED_V4.map(range), ...CLOSED_V6.map(range), ...policy.subnets, ...policy.deny];
  add(closed, 2000, (cidr) => [`to ${cidr} prohibit`]);
  return { v4: lines[4].join('\n'), v6: lines[6].join('\n') };
}
