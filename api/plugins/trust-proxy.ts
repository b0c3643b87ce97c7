/**
 * RAILYARD_TRUST_PROXY: which peers are reverse proxies whose `X-Forwarded-For` names the real client.
 * Behind Caddy or nginx every request arrives from the proxy's address, so without this every budget
 * counted per address (wrong keys, requests without a key, fork-run checks) would be one budget shared
 * by every client of the deployment, and one client could spend it for all.
 *
 * Rules: the value is a comma-separated list of addresses and CIDR ranges (IPv4 or IPv6), or the
 * named ranges `loopback`, `linklocal` and `uniquelocal`; empty (the default) trusts nobody and every
 * budget counts the TCP peer. Fastify's `trustProxy` (proxy-addr) applies it: `request.ip` is the
 * address the nearest untrusted hop reported, walking `X-Forwarded-For` from the right, and only when
 * the immediate peer is itself trusted, so a client that reaches the API directly cannot choose its
 * address by sending the header. `true` (trust every peer) is refused on purpose: whoever can reach the
 * port directly could then pick any address and never be counted.
 */
import net from 'node:net';

const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The problem with one entry, or null when proxy-addr accepts it as meant. */
function entryProblem(entry: string): string | null {
  if (NAMED.has(entry)) return null;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || address === undefined) return `'${entry}' is not an address or CIDR range`;
  const family = net.isIP(address);
  if (family === 0) return `'${entry}' is not an address or CIDR range`;
  if (bits === undefined) return null;
  const max = family === 4 ? 32 : 128;
  if (!/^[0-9]{1,3}$/.test(bits) || Number(bits) > max)
    return `'${entry}' has a prefix length that is not 0 to ${max}`;
  return null;
}

/** The trusted entries of a RAILYARD_TRUST_PROXY value, or the one sentence saying what is wrong. */
export function parseTrustedProxies(value: string): { ok: string[] } | { problem: string } {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem !== null)
      return {
        problem: `${problem}; list proxy addresses or CIDR ranges separated by commas (or loopback, linklocal, uniquelocal)`,
      };
  }
  return { ok: entries };
}
