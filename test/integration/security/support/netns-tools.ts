/**
 * What the tests that build network namespaces of their own share (neighbourhood.ts, executor-network.ts):
 * `ip` that throws with its message, whether this machine already routes an address (so a fixture never
 * shadows a real network), and the TCP listener those fixtures run inside their namespaces, which
 * prints its port and every local address a connection arrived on.
 */
import { spawnSync } from 'node:child_process';
import { ipCommand } from '../../../../executor/sandbox-network';

export function ip(...args: string[]): string {
  const result = spawnSync(ipCommand()!, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

/** Whether this machine routes `address` by anything but a default route (a real network there). */
export function routed(address: string): boolean {
  const family = address.includes(':') ? '-6' : '-4';
  return ip(family, 'route', 'show', 'table', 'all', 'match', address)
    .split('\n')
    .some((line) => line.trim() !== '' && !line.startsWith('default'));
}

/** A Node program listening on `host` (any port): `port <n>` once up, `conn <local address>` per connection. */
export const listenerScript = (host: '0.0.0.0' | '::') => `
const net = require('node:net');
const server = net.createServer((socket) => {
  console.log('conn ' + socket.localAddress.replace(/^::ffff:/, ''));
  socket.destroy();
});
server.listen(0, '${host}', () => console.log('port ' + server.address().port));
`;
