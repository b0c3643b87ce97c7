/**
 * A TCP proxy on loopback standing in for the load balancer in front of several API processes, steered
 * by the test (issue 27): every new connection goes to the backend `route` chose last, or to the next
 * one when that refuses the connection (killed), as a health-checked load balancer would. Armed with
 * `swallowClaimFrom`, it drops the first claim answer that carries a job: the executor's connection is
 * closed before a byte of that answer reaches it, which is what an executor sees when the API process
 * that took the claim dies while answering.
 *
 * Invariants: bytes pass unchanged in both directions, except the one swallowed answer; an error on
 * either side ends both; `close` ends every open connection.
 */
import net from 'node:net';

export interface SwitchProxy {
  url: string;
  /** New connections go to this backend port from now on. */
  route(port: number): void;
  /** Resolves once an answer of `port` to a claim that carried a job was swallowed. */
  swallowClaimFrom(port: number): Promise<void>;
  close(): Promise<void>;
}

const CLAIM_REQUEST = 'POST /v1/executor/jobs/claim ';

export async function startSwitchProxy(backends: readonly number[]): Promise<SwitchProxy> {
  let primary = backends[0]!;
  let armed: { port: number; swallowed: () => void } | null = null;
  const open = new Set<net.Socket>();

  const pipe = (client: net.Socket, backend: number, tries: number): void => {
    const upstream = net.connect(backend, '127.0.0.1');
    open.add(upstream);
    let connected = false;
    // A claim was sent on this connection and its answer has not come yet.
    let claimPending = false;
    upstream.once('connect', () => {
      connected = true;
      client.on('data', (chunk: Buffer) => {
        if (chunk.includes(CLAIM_REQUEST)) claimPending = true;
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        const answersClaim = claimPending;
        claimPending = false;
        // The whole answer (headers and the job's JSON) leaves a Fastify reply in one write.
        if (answersClaim && armed?.port === backend && chunk.subarray(0, 12).toString() === 'HTTP/1.1 200') {
          const { swallowed } = armed;
          armed = null;
          client.destroy();
          upstream.destroy();
          swallowed();
          return;
        }
        client.write(chunk);
      });
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected && tries + 1 < backends.length) {
        open.delete(upstream);
        pipe(client, backends[(backends.indexOf(backend) + 1) % backends.length]!, tries + 1);
      } else client.destroy();
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
    pipe(client, primary, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    route(backend) {
      primary = backend;
    },
    swallowClaimFrom(backend) {
      return new Promise((resolve) => {
        armed = { port: backend, swallowed: resolve };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
