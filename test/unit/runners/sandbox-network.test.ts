/**
 * The command lines of a sandboxed run's network (executor/sandbox-network.ts): which kind a
 * run gets (a network-on run that cannot be isolated is refused unless the operator allows the host's), and that both ways of starting pasta carry every option that keeps the host's loopback out
 * of reach. The runs themselves are in test/integration/security/sandbox-network.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX, networkKind, networkRefusal, sandboxedCommand } from '../../../executor/sandbox';
import {
  type UnisolatedNetwork,
  GATE_WAIT,
  NET_SETUP,
  PASTA_OPTIONS,
  pastaSpawn,
  ROUTE_WAIT,
  RULES_FAILED,
} from '../../../executor/sandbox-network';

const runAs = { uid: 65534, gid: 65534 };
const spec = {
  pasta: '/usr/bin/pasta',
  bwrap: '/usr/bin/bwrap',
  bwrapOptions: ['--unshare-user', '--unshare-pid'],
  command: ['bash', '-c', 'npm test'],
  runAs,
  ip: '/usr/sbin/ip',
  rules: { v4: 'rule add prio 2000 to 10.0.0.0/8 prohibit', v6: 'rule add prio 2000 to fc00::/7 prohibit' },
};
/** Each option that keeps the host's loopback out of reach, with its value. */
const SEALING = [
  ['--no-map-gw'],
  ['--tcp-ns', 'none'],
  ['--udp-ns', 'none'],
  ['--tcp-ports', 'none'],
  ['--udp-ports', 'none'],
];
const hasSequence = (list: readonly string[], seq: string[]) =>
  list.some((_, i) => seq.every((word, j) => list[i + j] === word));

it('a run gets no network when off, its own through pasta when on, none (refused) without pasta', () => {
  expect(networkKind({ network: false, pasta: 'pasta' })).toBe('none');
  expect(networkKind({ network: true, pasta: 'pasta' })).toBe('isolated');
  expect(networkKind({ network: true })).toBe('refused');
});

it('wrap: pasta, with every sealing option, sets the rules and then runs bwrap in its namespace, as the sandbox user when root', () => {
  const line = pastaSpawn('wrap', { ...spec, root: true });
  expect(line.file).toBe('/usr/bin/pasta');
  const split = line.args.indexOf('--');
  for (const seq of SEALING) expect(hasSequence(line.args.slice(0, split), seq)).toBe(true);
  // pasta's child, root of pasta's user namespace: the rules, then exec bwrap (which drops that).
  const child = line.args.slice(split + 1);
  expect(child.slice(0, 4)).toEqual(['bash', '--norc', '--noprofile', '-c']);
  expect(child[4]).toBe(`${NET_SETUP}shift 3; exec "$@"`);
  expect(child.slice(5, 9)).toEqual(['railyard-sandbox-rules', spec.ip, spec.rules.v4, spec.rules.v6]);
  expect(child.slice(9)).toEqual([
    '/usr/bin/bwrap',
    '--unshare-user',
    '--unshare-pid',
    '--',
    'bash',
    '-c',
    'npm test',
  ]);
  expect(line.args).not.toContain('--unshare-net'); // the namespace is pasta's
  expect(line.ids).toEqual(runAs);
  expect(pastaSpawn('wrap', { ...spec, root: false }).ids).toBeUndefined();
});

it('the setup waits for the route, sets both families’ rules, and fails the run as the executor’s fault otherwise', () => {
  expect(NET_SETUP.startsWith(ROUTE_WAIT)).toBe(true);
  expect(NET_SETUP).toContain('"$1" -4 -batch -');
  expect(NET_SETUP).toContain('"$1" -6 -batch -');
  expect(NET_SETUP).toContain(`echo "${RULES_FAILED}" >&2; exit 125`);
});

it('helper: a root coordinator starts bwrap as the sandbox user in a new network, pasta joins it', () => {
  const line = pastaSpawn('helper', { ...spec, root: true });
  expect(line.file).toBe('bash');
  expect(line.ids).toBeUndefined();
  const script = line.args[line.args.indexOf('-c') + 1]!;
  expect(script).toContain('setpriv --reuid="$uid" --regid="$gid" --clear-groups');
  expect(script).toContain('--netns-only --netns /proc/self/fd/7');
  // pasta starts once bwrap has set its namespace's loopback up: earlier, bwrap's own address request
  // could fail under load ("bwrap: loopback: Failed RTM_NEWADDR").
  const pasta = script.indexOf('"$pasta" --runas 0');
  expect(script.indexOf('-o link show lo')).toBeGreaterThan(script.indexOf('exec 7<'));
  expect(script.indexOf('-o link show lo')).toBeLessThan(pasta);
  // The command waits on the gate (GATE_WAIT, fd 6) until the rules are set in its network namespace;
  // the gate's writer (fd 4) is this coordinator's alone, so its death ends the wait (end of file).
  const rules = script.indexOf('nsenter --net=/proc/self/fd/7 -- bash');
  expect(rules).toBeGreaterThan(pasta);
  expect(rules).toBeLessThan(script.indexOf('printf go >&4'));
  expect(script).toContain('exec 9>&1 1>&5 5>&- 4>&-'); // bwrap does not keep the writer
  expect(script).toContain('"$setup" setup "$ip" "$rules4" "$rules6" 4>&-');
  expect(script).toContain('--netns /proc/self/fd/7 4>&- &');
  for (const seq of SEALING) expect(script).toContain(seq.join(' '));
  expect(line.args.slice(line.args.indexOf('-c') + 2)).toEqual([
    'railyard-sandbox-network',
    '/usr/bin/pasta',
    '65534',
    '65534',
    NET_SETUP,
    spec.ip,
    spec.rules.v4,
    spec.rules.v6,
    '/usr/bin/bwrap',
    '--unshare-net',
    '--info-fd',
    '9',
    '--unshare-user',
    '--unshare-pid',
    '--',
    ...['bash', '--norc', '--noprofile', '-c', GATE_WAIT, 'railyard-gate'],
    'bash',
    '-c',
    'npm test',
  ]);
  expect([...PASTA_OPTIONS]).toContain('--foreground'); // killed with the run's process group
});

describe('sandboxedCommand', () => {
  let checkout: string;
  beforeAll(() => {
    checkout = mkdtempSync(join(tmpdir(), 'railyard-net-unit-'));
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));
  const host = { kind: 'host' as const, reason: 'pasta is not installed (Debian package passt)' };
  const line = (network: boolean, unisolatedNetwork?: UnisolatedNetwork) =>
    sandboxedCommand(
      { ...DEFAULT_SANDBOX, bwrap: 'bwrap', network, ...(unisolatedNetwork ? { unisolatedNetwork } : {}) },
      { command: 'true', checkout, env: {} },
    );

  it('network off: bwrap alone, with a network namespace of its own', () => {
    expect(line(false).file).toBe('bwrap');
    expect(line(false).args).toContain('--unshare-net');
  });

  it('network on without pasta: refused, naming the missing tool, unless the host network is allowed', () => {
    const ip = "ip is not installed (Debian package iproute2): the run's network cannot be limited";
    expect(() => line(true, { kind: 'refused', reason: ip })).toThrow(
      /cannot give it a network of its own \(ip is not installed \(Debian package iproute2\).*refused.*RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow/,
    );
    expect(() => line(true)).toThrow(/\(no pasta was given to the sandbox\); it is refused/);
    expect(line(true, host).file).toBe('bwrap');
    expect(line(true, host).args).not.toContain('--unshare-net');
    expect(line(true, host).args.join(' ')).not.toContain(ROUTE_WAIT);
  });

  it('without pasta only the operator’s allow gives the host’s network; off is never refused', () => {
    expect(networkKind({ network: false, unisolatedNetwork: { ...host, kind: 'refused' } })).toBe('none');
    expect(networkKind({ network: true, unisolatedNetwork: { ...host, kind: 'refused' } })).toBe('refused');
    expect(networkKind({ network: true, unisolatedNetwork: host })).toBe('host');
    expect(networkRefusal({ network: false })).toBeNull();
    expect(networkRefusal({ network: true, unisolatedNetwork: host })).toBeNull();
  });
});
