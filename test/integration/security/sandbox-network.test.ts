/**
 * The network of a sandboxed test run (executor/sandbox-network.ts, sandbox-addresses.ts; issues 17
 * and 24): with the network on and pasta available, a test command reaches the internet (the npm
 * registry) but none of the host's loopback services — listeners this test starts on 127.0.0.1 and on
 * every address, the real PostgreSQL and Temporal of `npm test` — not through 127.0.0.1, ::1, the gateway
 * address or the host's own address; and nothing of the neighbourhood this test makes itself
 * (support/neighbourhood.ts: a private-range, a link-local and a unique-local listener in a network
 * namespace of its own, and this machine's own address in that subnet), unless the allow-list names
 * it, and then exactly that. The command cannot remove the rules, nor through a user namespace it nests.
 * With the network off nothing either. Where the executor finds no `ip` (its tool lookup made to find
 * none), a network-on run is refused, naming iproute2, and reaches nothing; with the operator's
 * RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow it shares the host's network and does reach them: the
 * control that shows these checks see a connection when there is one. Every process of a run, pasta
 * included, is gone once the run ends, normally or at its timeout.
 * Every address probed is loopback, this machine's own, the gateway (closed before any packet leaves:
 * never probed with the host's network), or one the test made. Real bwrap, pasta, ip, checkouts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandRunner } from '../../../executor/command-runner';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../../../executor/sandbox';
import { probeSandbox } from '../../../executor/sandbox-probe';
import { parseRange } from '../../../executor/sandbox-addresses';
import { loadExecutorConfig } from '../../../worker/executor-config';
import { sandboxOf } from '../../../worker/sandbox-settings';
import { makeNeighbourhood, neighbourhoodUnavailable, type Neighbourhood } from './support/neighbourhood';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';
import { requireTestEnv } from '../../support/env';
import { INSTALL, requireTool } from '../../support/required-tool';
import { tsNode } from '../../../scripts/lib/ts-node';

jest.setTimeout(60_000);

// Missing bwrap or pasta fails this suite under CI, and skips what needs it loudly elsewhere.
const probe = probeSandbox('bwrap', 'pasta');
const bwrap = requireTool({
  tool: 'bwrap',
  probe,
  install: INSTALL.bwrap,
  neededBy: 'the sandbox network suite (sandbox-network.test.ts)',
});
const pasta =
  bwrap &&
  probe.kind === 'available' &&
  requireTool({
    tool: 'pasta',
    probe: probe.isolatedNetwork,
    install: INSTALL.pasta,
    neededBy: "sandbox-network.test.ts's isolated-network cases",
  });
const unavailable = neighbourhoodUnavailable();
const neighbourhood =
  pasta &&
  requireTool({
    tool: 'ip netns',
    probe: unavailable === null ? { kind: 'available' } : { kind: 'unavailable', reason: unavailable },
    install: 'run the tests as root with iproute2 installed (bash scripts/ensure-bwrap.sh)',
    neededBy: "sandbox-network.test.ts's neighbourhood cases",
  });
const withBwrap = bwrap ? describe : describe.skip;
const withPasta = pasta ? it : it.skip;
const withNeighbourhood = neighbourhood ? it : it.skip;

interface Listener {
  server: Server;
  port: number;
  connections: number;
}

async function listen(host: string): Promise<Listener> {
  const listener = { connections: 0 } as Listener;
  listener.server = createServer((socket) => {
    listener.connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.server.listen(0, host, resolve));
  listener.port = (listener.server.address() as { port: number }).port;
  return listener;
}

/** The host's default IPv4 gateway (pasta gives the namespace the same one). */
function gateway(): string | undefined {
  for (const line of readFileSync('/proc/net/route', 'utf8').split('\n').slice(1)) {
    const [, destination, hex] = line.split('\t');
    if (destination === '00000000' && hex) return Buffer.from(hex, 'hex').reverse().join('.');
  }
  return undefined;
}

function hostAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

/**
 * Whether this machine reaches the npm registry at all: null when it does, else why not (then the
 * registry check fails under CI, and is skipped saying so elsewhere).
 */
function registryReachable(): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request('https://registry.npmjs.org/', { method: 'HEAD', timeout: 8_000 }, (res) => {
      res.resume();
      resolve(null);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 8 s')));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

withBwrap('a sandboxed run with the network on', () => {
  let fx: GitFixture & { base: string };
  let scratch: string;
  let local: Listener;
  let any: Listener;
  let nbh: Neighbourhood | undefined;
  let runs = 0;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    scratch = mkdtempSync(join(tmpdir(), 'railyard-sandbox-net-'));
    chmodSync(scratch, 0o711); // searchable by the sandbox's unprivileged user when tests run as root
    local = await listen('127.0.0.1');
    any = await listen('::');
    if (neighbourhood) nbh = await makeNeighbourhood();
  });
  afterAll(async () => {
    await nbh?.close();
    fx.cleanup();
    rmSync(scratch, { recursive: true, force: true });
    await Promise.all([local, any].map((l) => new Promise((r) => l.server.close(r))));
  });

  const run = async (command: string, sandbox: Partial<SandboxSettings>, timeoutMs = 30_000) => {
    runs += 1;
    const runner = createCommandRunner({
      gitHost: fx.host,
      workRoot: join(scratch, 'checkouts'),
      logRoot: join(scratch, 'logs'),
      killGraceMs: 500,
      sandbox: { ...DEFAULT_SANDBOX, bwrap: 'bwrap', ...sandbox },
    });
    const result = await runner.run({
      runId: `net-${runs}`,
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command,
      timeoutMs,
    });
    return { result, log: readFileSync(result.logPath, 'utf8') };
  };

  /** A run's outcome, and its log too when it is not `expected`: a failure then shows why it failed. */
  const expectOutcome = (result: { outcome: string }, log: string, expected: string) =>
    expect(
      result.outcome === expected ? { outcome: result.outcome } : { outcome: result.outcome, log },
    ).toEqual({ outcome: expected });

  /** The probe lines of `list`: each prints "reached <host>:<port>" when a connection opened. */
  const probes = (list: [string, number | string][]) =>
    list
      .map(
        ([host, port]) =>
          `if timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null; then echo "reached ${host}:${port}"; fi`,
      )
      .join('\n');

  /** The neighbourhood's listeners, and this machine's own address in its subnet (the `any` listener). */
  const neighbours = (): [string, number][] =>
    nbh
      ? [
          [nbh.addresses.private, nbh.port],
          [nbh.addresses.linkLocal, nbh.port],
          [nbh.addresses.uniqueLocal, nbh.port],
          [nbh.ownAddress, any.port],
        ]
      : [];

  /** One probe per target; the gateway only where no packet can leave (`withGateway`). */
  const targets = (withGateway = true) => {
    const pg = new URL(requireTestEnv('TEST_DATABASE_URL'));
    const temporal = requireTestEnv('TEST_TEMPORAL_ADDRESS').split(':');
    const list: [string, number | string][] = [
      ['127.0.0.1', local.port],
      ['127.0.0.1', any.port],
      ['::1', any.port],
      [pg.hostname, pg.port || '5432'],
      [temporal[0]!, temporal[1]!],
    ];
    const gw = gateway();
    const own = hostAddress();
    if (gw && withGateway) list.push([gw, any.port]);
    if (own) list.push([own, any.port]);
    return probes([...list, ...neighbours()]);
  };
  const reached = (log: string) => log.split('\n').filter((l) => l.startsWith('reached '));

  withPasta(
    "reaches none of the host's loopback services, nor the neighbourhood, by any address",
    async () => {
      const before = [local.connections + any.connections, nbh?.connections.length];
      const { result, log } = await run(targets(), { network: true, pasta: 'pasta' });
      expectOutcome(result, log, 'passed');
      expect(reached(log)).toEqual([]);
      expect([local.connections + any.connections, nbh?.connections.length]).toEqual(before);
    },
  );

  it('with the network off reaches none of them either', async () => {
    const before = [local.connections + any.connections, nbh?.connections.length];
    const { result, log } = await run(targets(), { network: false, pasta: 'pasta' });
    expectOutcome(result, log, 'passed');
    expect(reached(log)).toEqual([]);
    expect([local.connections + any.connections, nbh?.connections.length]).toEqual(before);
  });

  /** The executor's sandbox where its lookup finds no `ip` (a real probe otherwise), under `env`. */
  const withoutIp = (env: Record<string, string> = {}) => {
    const found = probeSandbox('bwrap', 'pasta', () => null);
    const warnings: string[] = [];
    const config = loadExecutorConfig({ RAILYARD_EXECUTOR_TOKEN: `rye_${'A'.repeat(43)}`, ...env });
    const sandbox = sandboxOf(
      config,
      () => found,
      (m) => warnings.push(m),
    );
    return { sandbox: { ...sandbox!, writablePaths: [], readOnlyPaths: [] }, warnings: warnings.join('\n') };
  };

  withPasta(
    'where ip is missing, a network-on run is refused, naming iproute2, and reaches nothing',
    async () => {
      const { sandbox, warnings } = withoutIp();
      expect(warnings).toMatch(/network on are REFUSED: .*ip is not installed \(Debian package iproute2\)/);
      const before = [local.connections + any.connections, nbh?.connections.length];
      await expect(run(targets(false), sandbox)).rejects.toThrow(
        /cannot give it a network of its own \(ip is not installed \(Debian package iproute2\)/,
      );
      expect([local.connections + any.connections, nbh?.connections.length]).toEqual(before);
      // The network off is never refused.
      const { result, log } = await run('echo off-ran', { ...sandbox, network: false });
      expectOutcome(result, log, 'passed');
      expect(log).toMatch(/^off-ran$/m);
    },
  );

  it("with RAILYARD_SANDBOX_NETWORK_UNISOLATED=allow the host's network is shared: the same checks see the listeners (control)", async () => {
    const before = [local.connections, any.connections, nbh?.connections.length ?? 0];
    const { sandbox, warnings } = withoutIp({ RAILYARD_SANDBOX_NETWORK_UNISOLATED: 'allow' });
    expect(sandbox.unisolatedNetwork?.kind).toBe('host');
    expect(warnings).toMatch(/share this machine's network/);
    const { result, log } = await run(targets(false), sandbox);
    expectOutcome(result, log, 'passed');
    expect(reached(log)).toEqual(
      expect.arrayContaining([
        `reached 127.0.0.1:${local.port}`,
        ...neighbours().map(([host, port]) => `reached ${host}:${port}`),
      ]),
    );
    expect(local.connections).toBeGreaterThan(before[0]!);
    if (nbh) {
      expect(any.connections).toBeGreaterThan(before[1]!);
      expect(nbh.connections.slice(before[2])).toEqual(
        expect.arrayContaining([nbh.addresses.private, nbh.addresses.linkLocal, nbh.addresses.uniqueLocal]),
      );
    }
  });

  withNeighbourhood('the allow-list opens exactly the address it names', async () => {
    const before = nbh!.connections.length;
    const { result, log } = await run(probes(neighbours()), {
      network: true,
      pasta: 'pasta',
      networkAllow: [parseRange(nbh!.addresses.private)!],
    });
    expectOutcome(result, log, 'passed');
    expect(reached(log)).toEqual([`reached ${nbh!.addresses.private}:${nbh!.port}`]);
    expect(nbh!.connections.slice(before)).toEqual([nbh!.addresses.private]);
  });

  withNeighbourhood(
    'the command cannot remove the rules: no capability over its network, nested or not',
    async () => {
      const before = nbh!.connections.length;
      const tamper = [
        'grep CapEff /proc/self/status',
        'ip rule del prio 2001',
        'ip rule flush',
        'ip -6 rule flush',
        'ip route add 10.0.0.0/8 dev lo', // a route, were a rule gone
        // Root of a user namespace of its own: capabilities over that namespace only.
        'unshare --user --map-root-user sh -c "grep CapEff /proc/self/status; ip rule flush; ip -6 rule flush"',
        'unshare --user --map-root-user --net sh -c "ip rule flush && echo own-namespace-only"',
      ].join('\n');
      const { result, log } = await run(
        `${tamper}\n${probes(neighbours())}\necho "rules $(ip rule | grep -c prohibit)"`,
        {
          network: true,
          pasta: 'pasta',
        },
      );
      expectOutcome(result, log, 'passed');
      expect(log).toMatch(/^CapEff:\s+0+$/m); // the command itself holds nothing
      expect(log.match(/Operation not permitted/g)?.length).toBeGreaterThanOrEqual(6);
      expect(log).toContain('own-namespace-only'); // a namespace it makes is its own, and empty
      expect(reached(log)).toEqual([]);
      expect(nbh!.connections.length).toBe(before);
      expect(Number(/^rules (\d+)$/m.exec(log)?.[1])).toBeGreaterThan(10); // the rules are all there
    },
  );

  // The executor here uses the helper form (/dev/net/tun is root's only); the wrap form gets the same
  // checks in a child whose private mount namespace has a 0666 tun node over /dev/net/tun.
  withNeighbourhood(
    'the wrap form sets the same rules: exactly the allowed address, rules out of reach',
    async () => {
      const checkout = join(scratch, 'wrap-checkout');
      mkdirSync(checkout, { recursive: true });
      chownSync(checkout, 65534, 65534);
      const tun = join(scratch, 'wrap-tun');
      mkdirSync(tun, { recursive: true });
      const command = `ip rule flush; unshare --user --map-root-user ip rule flush\n${probes(neighbours())}`;
      const before = nbh!.connections.length;
      const child = spawnSync(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          // A tmpfs of this namespace's own (the scratch folder may be nodev), a tun node on it, bound over.
          'mount -t tmpfs -o mode=0755 railyard-tun "$1" && mknod -m 0666 "$1/tun" c 10 200 && ' +
            'mount --bind "$1/tun" /dev/net/tun && shift && exec "$@"',
          'railyard-wrap',
          tun,
          ...tsNode(join(__dirname, 'support', 'wrap-form-run.ts')).flat(),
          checkout,
          command,
          nbh!.addresses.private,
        ],
        { encoding: 'utf8', timeout: 90_000 },
      );
      const last = child.stdout.trim().split('\n').at(-1) ?? '';
      const out = JSON.parse(last || '{}') as { form?: string; status?: number; output?: string };
      expect({ form: out.form, status: out.status, stderr: child.stderr }).toEqual({
        form: 'wrap',
        status: 0,
        stderr: '',
      });
      expect(out.output).toContain('Operation not permitted');
      expect(reached(out.output ?? '')).toEqual([`reached ${nbh!.addresses.private}:${nbh!.port}`]);
      // The listener's report comes through its stdout, read once the event loop runs again.
      for (let i = 0; i < 100 && nbh!.connections.length === before; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(nbh!.connections.slice(before)).toEqual([nbh!.addresses.private]);
    },
  );

  withPasta('reaches the npm registry: DNS and HTTPS', async () => {
    const unreachable = await registryReachable();
    // Unreachable from the host: under CI a failure (throws), never a pass; elsewhere said loudly.
    const reachable = requireTool({
      tool: 'the npm registry',
      probe: unreachable === null ? { kind: 'available' } : { kind: 'unavailable', reason: unreachable },
      install: 'network access from this machine to https://registry.npmjs.org/',
      neededBy: "sandbox-network.test.ts's registry check",
    });
    if (!reachable) return;
    const { result, log } = await run(
      'getent hosts registry.npmjs.org && curl -sS -o /dev/null -w "status %{http_code}\\n" -m 20 https://registry.npmjs.org/',
      { network: true, pasta: 'pasta' },
    );
    expectOutcome(result, log, 'passed');
    expect(log).toMatch(/^status 200$/m);
  });

  withPasta('every process of the run, pasta included, is gone when it ends or times out', async () => {
    const marker = String(500_000 + process.pid);
    for (const [command, outcome, timeoutMs] of [
      [`sleep 1.${marker}`, 'passed', 30_000],
      // Long enough for pasta to start on a loaded machine: it joins only once bwrap's namespaces exist.
      [`sleep ${marker}`, 'timeout', 5_000],
    ] as const) {
      const seen = new Map<number, string>();
      const done = run(command, { network: true, pasta: 'pasta' }, timeoutMs);
      let finished = false;
      void done.finally(() => (finished = true));
      while (!finished) {
        // Keep the last non-empty command line of each process: a zombie's is empty, and between fork
        // and exec a process shows its parent's (pasta is forked by the helper's bash, then setpriv).
        for (const p of runGroup(marker)) if (p.cmdline || !seen.has(p.pid)) seen.set(p.pid, p.cmdline);
        await new Promise((r) => setTimeout(r, 50));
      }
      const { result, log } = await done;
      expectOutcome(result, log, outcome);
      // The run's group held pasta (the run's network) besides bwrap and the command.
      expect([...seen.values()].filter((c) => c.startsWith('pasta ')).length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      expect([...seen.keys()].filter(alive)).toEqual([]);
    }
  });
});

/** The processes of the run whose command line holds `marker`: its whole process group. */
function runGroup(marker: string): { pid: number; cmdline: string }[] {
  const all = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
    .map((pid) => ({
      pid: Number(pid),
      group: groupOf(read(`/proc/${pid}/stat`)),
      cmdline: commandOf(Number(pid)),
    }))
    .filter((p) => p.group > 0);
  const groups = new Set(all.filter((p) => p.cmdline.includes(marker)).map((p) => p.group));
  return all.filter((p) => groups.has(p.group));
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function commandOf(pid: number): string {
  return read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ');
}

/** Fields after the command name: state, ppid, pgrp (0 when the process is gone). */
function groupOf(stat: string): number {
  return stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) : 0;
}

function alive(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}
