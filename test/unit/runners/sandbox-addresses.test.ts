/**
 * The address rules of a network-on run (executor/sandbox-addresses.ts) and the allow-list setting
 * (worker/sandbox-settings.ts): what is closed, in which order the rules come, and what the operator's
 * list accepts. The rules acting in a real namespace are in test/integration/security/sandbox-network.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addressRules,
  CLOSED_V4,
  CLOSED_V6,
  nameservers,
  parseRange,
  type AddressPolicy,
} from '../../../executor/sandbox-addresses';
import { networkAllowSetting } from '../../../worker/sandbox-network-allow';
import { sandboxOf } from '../../../worker/sandbox-settings';
import type { SandboxProbe } from '../../../executor/sandbox-probe';

const none: AddressPolicy = { allow: [], deny: [], dns: [], subnets: [] };
const prio = (line: string) => Number(/prio (\d+)/.exec(line)?.[1]);

it('closes loopback, the private, shared, link-local and unique-local ranges of the issue', () => {
  expect(CLOSED_V4).toEqual(
    expect.arrayContaining([
      '127.0.0.0/8',
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '100.64.0.0/10',
      '169.254.0.0/16',
    ]),
  );
  expect(CLOSED_V6).toEqual(expect.arrayContaining(['::/127', 'fc00::/7', 'fe80::/10', '64:ff9b::/96']));
  const rules = addressRules(none);
  expect(rules.v4.split('\n')).toContain('rule add prio 2004 to 169.254.0.0/16 prohibit');
  expect(rules.v6).toContain('to fc00::/7 prohibit');
  expect(rules.v4).not.toContain(':');
});

it('opens the allow-list, then the resolvers on port 53 only, in front of every closed range', () => {
  const rules = addressRules({
    allow: [parseRange('10.1.2.3')!, parseRange('fd12::/64')!],
    deny: [parseRange('203.0.113.7')!],
    dns: [parseRange('10.255.255.53')!],
    subnets: [parseRange('192.0.2.2/24')!],
  });
  const v4 = rules.v4.split('\n');
  expect(v4[0]).toBe('rule add prio 1000 to 10.1.2.3/32 lookup main');
  expect(v4.slice(1, 3)).toEqual([
    'rule add prio 1500 to 10.255.255.53/32 ipproto udp dport 53 lookup main',
    'rule add prio 1501 to 10.255.255.53/32 ipproto tcp dport 53 lookup main',
  ]);
  const closed = v4.filter((l) => l.endsWith('prohibit'));
  expect(closed).toEqual(
    expect.arrayContaining([
      expect.stringContaining('to 192.0.2.2/24 '),
      expect.stringContaining('to 203.0.113.7/32 '),
    ]),
  );
  expect(Math.min(...closed.map(prio))).toBeGreaterThan(Math.max(...v4.slice(0, 3).map(prio)));
  expect(rules.v6.split('\n')[0]).toBe('rule add prio 1000 to fd12::/64 lookup main');
});

it('parses addresses and ranges of both families, and nothing else', () => {
  expect(parseRange('10.0.0.0/8')).toEqual({ family: 4, cidr: '10.0.0.0/8' });
  expect(parseRange('::1')).toEqual({ family: 6, cidr: '::1/128' });
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'registry.local', '10.0.0.0/8/1', '10.0.0/8', '1.2.3.4/x'])
    expect(parseRange(bad)).toBeNull();
});

it('reads the resolvers of resolv.conf, IPv6 zones dropped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'railyard-resolv-'));
  try {
    const file = join(dir, 'resolv.conf');
    writeFileSync(
      file,
      '# comment\nnameserver 10.0.0.2\nsearch example\nnameserver fe80::1%eth0\nnameserver bogus\n',
    );
    expect(nameservers(file)).toEqual([
      { family: 4, cidr: '10.0.0.2/32' },
      { family: 6, cidr: 'fe80::1/128' },
    ]);
    expect(nameservers(join(dir, 'missing'))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('RAILYARD_SANDBOX_NETWORK_ALLOW', () => {
  const probe = (): SandboxProbe => ({
    kind: 'available',
    version: 'bubblewrap 0.8.0',
    isolatedNetwork: { kind: 'available', form: 'helper' },
  });
  const config = (allow?: string, api = 'https://railyard.example.com') => ({
    RAILYARD_EXECUTOR_UNSANDBOXED: false,
    RAILYARD_SANDBOX_NETWORK: 'on' as const,
    RAILYARD_SANDBOX_NETWORK_UNISOLATED: 'refuse' as const,
    RAILYARD_SANDBOX_MEMORY_MB: 1024,
    RAILYARD_SANDBOX_MAX_PROCESSES: 64,
    RAILYARD_SANDBOX_MAX_FILE_MB: 64,
    RAILYARD_SANDBOX_TMP_MB: 64,
    RAILYARD_SANDBOX_NETWORK_ALLOW: allow === undefined ? undefined : networkAllowSetting.parse(allow),
    RAILYARD_EXECUTOR_API_URL: api,
  });
  const hosts: Record<string, string[]> = {
    'mirror.internal': ['10.9.8.7', 'fd00::7'],
    'railyard.example.com': ['203.0.113.9'],
  };
  const resolve = (name: string) => hosts[name] ?? [];

  it('accepts addresses, ranges and host names, and refuses anything else, naming the problem', () => {
    expect(networkAllowSetting.parse(' 10.1.0.0/16, mirror.internal ,fd00::1')).toEqual([
      '10.1.0.0/16',
      'mirror.internal',
      'fd00::1',
    ]);
    for (const bad of ['10.0.0.0/40', 'http://mirror', 'a b', '-bad.example'])
      expect(networkAllowSetting.safeParse(bad).error?.issues[0]?.message).toMatch(
        /IP address, a CIDR range/,
      );
  });

  it('opens each entry (a host name as each of its addresses) and closes the API’s addresses', () => {
    const warnings: string[] = [];
    const sandbox = sandboxOf(config('10.1.0.0/16,mirror.internal'), probe, (m) => warnings.push(m), resolve);
    expect(sandbox?.networkAllow?.map((r) => r.cidr)).toEqual(['10.1.0.0/16', '10.9.8.7/32', 'fd00::7/128']);
    expect(sandbox?.networkDeny?.map((r) => r.cidr)).toEqual(['203.0.113.9/32']);
    expect(warnings.join('\n')).toContain('may also reach 10.1.0.0/16, 10.9.8.7/32, fd00::7/128');
  });

  it('a name that does not resolve stops the executor; an API address literal is closed as it is', () => {
    expect(() => sandboxOf(config('nowhere.internal'), probe, () => {}, resolve)).toThrow(
      /RAILYARD_SANDBOX_NETWORK_ALLOW names nowhere.internal, which does not resolve here/,
    );
    const sandbox = sandboxOf(config(undefined, 'http://[fd00::5]:8080'), probe, () => {}, resolve);
    expect(sandbox?.networkAllow).toEqual([]);
    expect(sandbox?.networkDeny?.map((r) => r.cidr)).toEqual(['fd00::5/128']);
  });
});
