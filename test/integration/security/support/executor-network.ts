/**
 * The executor's network of the split-deployment test (issue 24), wired as docker-compose.yml's
 * `executors` network: a network namespace for the executor joined to this machine by a veth pair whose
 * subnet holds the API's address (this machine's end) and the executor's (the namespace's end), and
 * nothing of the control plane — Temporal and PostgreSQL listen on this machine's loopback, which no
 * other namespace reaches. `api` resolves to the API's address inside the namespace (`ip netns exec`
 * binds /etc/netns/<name>/hosts over /etc/hosts), as a compose service name does.
 *
 * The namespace also holds the neighbourhood an executor host may have, served by one listener of the
 * test's: an office-network host (a private address) and cloud metadata (169.254.211.254 standing in:
 * the real 169.254.169.254 is a real service on a cloud CI machine), both on the namespace's loopback interface, so pasta
 * (which copies the default route's interface) does not copy them into a run's namespace.
 *
 * Rules the fixture keeps: the subnet is one this machine routes nothing more specific than its
 * default route to (it never shadows a real network); the namespace's policy routing prohibits every
 * destination but its subnet and its own addresses (it has a default route only because pasta needs one
 * to configure a run's network), so nothing the executor or a run does reaches any other address;
 * `close()` removes the namespace (both ends of the pair and their routes go with it), the hosts file
 * and the listener. Needs root and iproute2.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ipCommand } from '../../../../executor/sandbox-network';
import { ip, listenerScript, routed } from './netns-tools';

export interface ExecutorNetwork {
  /** The namespace's name, for `ip netns exec` (startExecutorProcess's `netns`). */
  name: string;
  /** This machine's end of the pair, where the API listens: `api` in the namespace. */
  apiAddress: string;
  /** The executor's own address (the namespace's end). */
  executorAddress: string;
  /** The subnet's first three octets: `${subnet}.1` … `${subnet}.254`. */
  subnet: string;
  /** The listener's addresses: an office host (private range) and metadata (link-local). */
  office: string;
  metadata: string;
  port: number;
  /** Local addresses the listener has seen connections on, in order. */
  connections: string[];
  /** Whether a TCP connection to host:port opens from inside the namespace (outside any sandbox). */
  reachesFromNamespace(host: string, port: number): boolean;
  close(): Promise<void>;
}

export async function makeExecutorNetwork(): Promise<ExecutorNetwork> {
  const tag = String(process.pid % 10_000);
  const name = `railyard-exec-${tag}`;
  const third = 1 + (process.pid % 250);
  const candidates = [`10.217.${third}`, `10.218.${third}`, `172.28.${third}`];
  const subnet = candidates.find((c) => !routed(`${c}.2`));
  if (!subnet) throw new Error(`every candidate subnet is routed here already: ${candidates.join(', ')}`);
  // Only inside the namespace (no route to them here): they shadow nothing of this machine's.
  const office = `10.219.${third}.20`;
  const metadata = '169.254.211.254';
  const hostEnd = `rye${tag}`;
  const peer = `ryx${tag}`;
  const etc = `/etc/netns/${name}`;
  const cleanup = () => {
    spawnSync(ipCommand()!, ['netns', 'del', name]);
    rmSync(etc, { recursive: true, force: true });
  };
  cleanup(); // a killed earlier run's
  ip('netns', 'add', name);
  let listener: ChildProcess | undefined;
  try {
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', peer, 'netns', name);
    ip('addr', 'add', `${subnet}.1/24`, 'dev', hostEnd);
    ip('link', 'set', hostEnd, 'up');
    const ns = (...args: string[]) => ip('-n', name, ...args);
    ns('addr', 'add', `${subnet}.2/24`, 'dev', peer);
    ns('link', 'set', peer, 'up');
    ns('link', 'set', 'lo', 'up');
    ns('addr', 'add', `${office}/32`, 'dev', 'lo');
    ns('addr', 'add', `${metadata}/32`, 'dev', 'lo');
    ns('route', 'add', 'default', 'via', `${subnet}.1`);
    // The subnet only (the local table, prio 0, keeps the namespace's own addresses): whatever this
    // machine's end would accept beyond it — its other addresses — is out of reach.
    ns('rule', 'add', 'prio', '1000', 'to', `${subnet}.0/24`, 'lookup', 'main');
    ns('rule', 'add', 'prio', '1001', 'prohibit');
    ns('-6', 'rule', 'add', 'prio', '1001', 'prohibit');
    mkdirSync(etc, { recursive: true });
    writeFileSync(`${etc}/hosts`, `127.0.0.1 localhost\n${subnet}.1 api\n`);
    const child = spawn(
      ipCommand()!,
      ['netns', 'exec', name, process.execPath, '-e', listenerScript('0.0.0.0')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    listener = child;
    const connections: string[] = [];
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the listener exited (${code})`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('port ')) resolve(Number(line.slice(5)));
        else if (line.startsWith('conn ')) connections.push(line.slice(5));
      });
    });
    return {
      name,
      apiAddress: `${subnet}.1`,
      executorAddress: `${subnet}.2`,
      subnet,
      office,
      metadata,
      port,
      connections,
      reachesFromNamespace(host, p) {
        const probe = spawnSync(
          ipCommand()!,
          ['netns', 'exec', name, 'timeout', '3', 'bash', '-c', `exec 3<>/dev/tcp/${host}/${p}`],
          { stdio: 'ignore' },
        );
        return probe.status === 0;
      },
      async close() {
        child.kill('SIGKILL');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
        cleanup();
      },
    };
  } catch (err) {
    listener?.kill('SIGKILL');
    cleanup();
    throw err;
  }
}
