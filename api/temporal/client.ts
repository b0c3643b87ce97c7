/**
 * The API's Temporal client. The connection is lazy so the API starts (and /readyz reports the
 * problem) while Temporal is down. Every call goes through `withDeadline`, so a stopped server or worker
 * gives the HTTP caller a clear 503 instead of a hung request.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { pingWorkflow } from '../../workflows/ping';
import { unavailable } from '../errors';

export interface TemporalGateway {
  client: Client;
  connection: Connection;
  taskQueue: string;
  callTimeoutMs: number;
  /** Runs `fn` with the call deadline; timeouts and connection failures become a 503 AppError. */
  call<T>(what: string, fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  pingWorker(): Promise<void>;
  close(): Promise<void>;
}

const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */, 1 /* CANCELLED */]);

function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return true;
    if (e.name === 'ServiceError' || /deadline|UNAVAILABLE|connect/i.test(e.message)) return true;
  }
  return false;
}

export function createTemporalGateway(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  callTimeoutMs: number;
}): TemporalGateway {
  const connection = Connection.lazy({ address: opts.address, connectTimeout: opts.callTimeoutMs });
  const client = new Client({ connection, namespace: opts.namespace });
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await connection.withDeadline(Date.now() + opts.callTimeoutMs, fn);
    } catch (err) {
      if (isUnavailable(err)) {
        throw unavailable(
          `The merge queue did not answer ${what} within ${opts.callTimeoutMs} ms; Temporal or the railyard worker is unavailable, retry later.`,
        );
      }
      throw err;
    }
  };
  return {
    client,
    connection,
    taskQueue: opts.taskQueue,
    callTimeoutMs: opts.callTimeoutMs,
    call,
    async ping() {
      await connection.withDeadline(Date.now() + opts.callTimeoutMs, () =>
        connection.workflowService.getSystemInfo({}),
      );
    },
    async pingWorker() {
      const nonce = randomUUID();
      await connection.withDeadline(Date.now() + opts.callTimeoutMs, () =>
        client.workflow.execute(pingWorkflow, {
          taskQueue: opts.taskQueue,
          workflowId: `ping/${nonce}`,
          args: [nonce],
          workflowExecutionTimeout: `${opts.callTimeoutMs} ms`,
        }),
      );
    },
    close: () => connection.close(),
  };
}
