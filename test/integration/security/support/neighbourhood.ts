/**
 * A neighbourhood the sandbox network tests make themselves (issue 24): a network namespace joined to
 * this machine by a veth pair, holding one TCP listener on addresses that stand in for what an executor
 * must never reach — a private-range host (an office network), a link-local one (cloud metadata) and a
 * unique-local IPv6 one — while this machine's end of the pair holds an address in each subnet, as an
 * executor's own interface would (its own subnet, its neighbours).
 *
 * Rules the fixture keeps: every address it adds is one it chose after checking that this machine
 * routes nothing more specific than its default route there (it never shadows a real network); the
 * real metadata address 169.254.169.254 is not used (on a cloud CI machine it is the real one):
 * 169.254.211.254 stands in for it; everything is removed by `close()` (deleting the namespace removes
 * both ends of the pair and their routes). Needs root and iproute2 (`ip netns`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ipCommand } from '../../../../executor/sandbox-network';
import { ip, listenerScript, routed } from './netns-tools';

export interface Neighbourhood {
  /** The listener's addresses in the namespace: `private`, `linkLocal`, `uniqueLocal`. */
  addresses: { private: string; linkLocal: string; uniqueLocal: string };
  /** This machine's end of the pair: an address in the private subnet. */
  ownAddress: string;
  port: number;
  /** Local addresses the listener has seen connections on, in order. */
  connections: string[];
  close: () => Promise<void>;
}

/** Whether this machine can make one: null when it can, else why not. */
export function neighbourhoodUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  const ip = ipCommand();
  if (!ip) return 'ip is not installed (Debian package iproute2)';
  const probe = spawnSync(ip, ['netns', 'list'], { encoding: 'utf8' });
  return probe.status === 0 ? null : `ip netns does not work here (${probe.stderr.trim()})`;
}

/** Makes the namespace, the pair, the addresses and the listener. */
export async function makeNeighbourhood(): Promise<Neighbourhood> {
  const tag = String(process.pid % 10_000);
  const name = `railyard-nbh-${tag}`;
  const third = 1 + (process.pid % 250);
  const candidates = [`10.213.${third}`, `10.214.${third}`, `172.29.${third}`, `192.168.213`];
  const subnet = candidates.find((c) => !routed(`${c}.2`));
  if (!subnet)
    throw new Error(`every candidate private subnet is routed here already: ${candidates.join(', ')}`);
  const linkLocal = '169.254.211';
  const ula = `fd52:6169:6c79:${third.toString(16)}`;
  if (routed(`${linkLocal}.254`) || routed(`${ula}::2`))
    throw new Error(`${linkLocal}.0/24 or ${ula}::/64 is routed here already`);
  const host = `ryh${tag}`;
  const peer = `ryn${tag}`;
  spawnSync(ipCommand()!, ['netns', 'del', name]); // a killed earlier run's
  ip('netns', 'add', name);
  try {
    ip('link', 'add', host, 'type', 'veth', 'peer', 'name', peer, 'netns', name);
    ip('addr', 'add', `${subnet}.1/24`, 'dev', host);
    ip('addr', 'add', `${linkLocal}.1/24`, 'dev', host);
    ip('-6', 'addr', 'add', `${ula}::1/64`, 'dev', host, 'nodad');
    ip('link', 'set', host, 'up');
    ip('-n', name, 'addr', 'add', `${subnet}.2/24`, 'dev', peer);
    ip('-n', name, 'addr', 'add', `${linkLocal}.254/24`, 'dev', peer);
    ip('-n', name, '-6', 'addr', 'add', `${ula}::2/64`, 'dev', peer, 'nodad');
    ip('-n', name, 'link', 'set', peer, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (err) {
    spawnSync(ipCommand()!, ['netns', 'del', name]);
    throw err;
  }
  const listener: ChildProcess = spawn(
    ipCommand()!,
    ['netns', 'exec', name, process.execPath, '-e', listenerScript('::')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const connections: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    listener.once('exit', (code) => reject(new Error(`the listener exited (${code})`)));
    createInterface({ input: listener.stdout! }).on('line', (line) => {
      if (line.startsWith('port ')) resolve(Number(line.slice(5)));
      else if (line.startsWith('conn ')) connections.push(line.slice(5));
    });
  });
  return {
    addresses: { private: `${subnet}.2`, linkLocal: `${linkLocal}.254`, uniqueLocal: `${ula}::2` },
    ownAddress: `${subnet}.1`,
    port,
    connections,
    close: async () => {
      listener.kill('SIGKILL');
      await new Promise((r) => (listener.exitCode !== null ? r(null) : listener.once('exit', r)));
      spawnSync(ipCommand()!, ['netns', 'del', name]);
    },
  };
}
