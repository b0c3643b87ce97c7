/**
 * The command lines of a sandboxed run's network (executor/sandbox-network.ts): which kind a
 * run gets, and that both ways of starting pasta carry every option that keeps the host's loopback out
 * of reach. The runs themselves are in test/integration/security/sandbox-network.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX, networkKind, sandboxedCommand } from '../../../executor/sandbox';
import { PASTA_OPTIONS, pastaSpawn, ROUTE_WAIT } from '../../../executor/sandbox-network';

const runAs = { uid: 65534, gid: 65534 };
const spec = {
  pasta: '/usr/bin/pasta',
  bwrap: '/usr/bin/bwrap',
  bwrapOptions: ['--unshare-user', '--unshare-pid'],
  command: ['bash', '-c', 'npm test'],
  runAs,
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

it('a run gets no network when off, its own through pasta when on, the host’s without pasta', () => {
  expect(networkKind({ network: false, pasta: 'pasta' })).toBe('none');
  expect(networkKind({ network: true, pasta: 'pasta' })).toBe('isolated');
  expect(networkKind({ network: true })).toBe('host');
});

it('wrap: pasta, with every sealing option, runs bwrap in its namespace, as the sandbox user when root', () => {
  const line = pastaSpawn('wrap', { ...spec, root: true });
  expect(line.file).toBe('/usr/bin/pasta');
  const split = line.args.indexOf('--');
  for (const seq of SEALING) expect(hasSequence(line.args.slice(0, split), seq)).toBe(true);
  expect(line.args.slice(split + 1)).toEqual([
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

it('helper: a root coordinator starts bwrap as the sandbox user in a new network, pasta joins it', () => {
  const line = pastaSpawn('helper', { ...spec, root: true });
  expect(line.file).toBe('bash');
  expect(line.ids).toBeUndefined();
  const script = line.args[line.args.indexOf('-c') + 1]!;
  expect(script).toContain('setpriv --reuid="$uid" --regid="$gid" --clear-groups');
  expect(script).toContain('--netns-only --netns /proc/self/fd/7');
  for (const seq of SEALING) expect(script).toContain(seq.join(' '));
  expect(line.args.slice(line.args.indexOf('-c') + 2)).toEqual([
    'railyard-sandbox-network',
    '/usr/bin/pasta',
    '65534',
    '65534',
    '/usr/bin/bwrap',
    '--unshare-net',
    '--info-fd',
    '9',
    '--unshare-user',
    '--unshare-pid',
    '--',
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
  const line = (network: boolean) =>
    sandboxedCommand({ ...DEFAULT_SANDBOX, bwrap: 'bwrap', network }, { command: 'true', checkout, env: {} });

  it('network off: bwrap alone, with a network namespace of its own; on without pasta: the host’s', () => {
    expect(line(false).file).toBe('bwrap');
    expect(line(false).args).toContain('--unshare-net');
    expect(line(true).file).toBe('bwrap');
    expect(line(true).args).not.toContain('--unshare-net');
    expect(line(true).args.join(' ')).not.toContain(ROUTE_WAIT);
  });
});
