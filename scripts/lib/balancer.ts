/**
 * A round-robin TCP balancer on loopback, standing in for the load balancer in front of several API
 * processes (the multi-replica story, issue 27): each connection goes to the next backend in turn, and
 * a backend that refuses the connection (killed, restarting) is skipped for the next one, as a load
 * balancer's health check would, so clients notice a dead replica only on connections it held.
 *
 * Invariants: bytes are piped unchanged in both directions; an error on either side ends both; `close`
 * ends every open connection.
 */
import net from 'node:net';

export interface Balancer {
  port: number;
  close(): Promise<void>;
}

export async function startBalancer(port: number, backends: readonly number[]): Promise<Balancer> {
  let next = 0;
  const open = new Set<net.Socket>();
  const connect = (client: net.Socket, tries: number): void => {
    const backend = backends[next++ % backends.length]!;
    const upstream = net.connect(backend, '127.0.0.1');
    open.add(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected && tries + 1 < backends.length) connect(client, tries + 1);
      else client.destroy();
    });
    upstream.on('close', () => {
      open.delete(upstream);
      if (connected) client.destroy();
    });
    client.on('close', () => upstream.destroy());
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    connect(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
