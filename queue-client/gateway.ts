/**
 * The Temporal gateway of a process that owns its connection (the API): deadline-bounded calls
 * (calls.ts) over a lazy connection, plus the health probes. The connection is lazy so the process
 * starts (and /readyz reports the problem) while Temporal is down.
 *
 * Rules: the gRPC layer retries what it retries by default except RESOURCE_EXHAUSTED, which `call`
 * retries within the caller's budget with finer backoff; the connect timeout and both probes have the
 * call deadline.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, defaultGrpcRetryOptions } from '@temporalio/client';
import type { TemporalSecurity } from '../platform/temporal-security';
import { PING_WORKFLOW_TYPE, pingWorkflowId, type PingWorkflow } from '../contract';
import { createTemporalCalls, type TemporalCalls } from './calls';
import { RESOURCE_EXHAUSTED } from './grpc-status';
import { createRetryGate } from './retry-gate';

export interface TemporalGateway extends TemporalCalls {
  connection: Connection;
  taskQueue: string;
  /** Temporal answers (its system info) within the call deadline. */
  ping(): Promise<void>;
  /** A worker of the task queue runs the ping workflow within the call deadline. */
  pingWorker(): Promise<void>;
  close(): Promise<void>;
}

export function createTemporalGateway(opts: {
  address: string;
  /** TLS, client certificate, API key (platform/temporal-security.ts); none: plaintext. */
  security?: TemporalSecurity;
  namespace: string;
  taskQueue: string;
  callTimeoutMs: number;
  /** Default 60 s (a burst of hundreds of submits to one queue), never less than the call timeout. */
  busyBudgetMs?: number;
}): TemporalGateway {
  const grpcRetry = defaultGrpcRetryOptions();
  const retries = createRetryGate(
    (attempt, status) =>
      Number(status.code) !== RESOURCE_EXHAUSTED && grpcRetry.retryableDecider(attempt, status),
  );
  const connection = Connection.lazy({
    address: opts.address,
    ...opts.security,
    connectTimeout: opts.callTimeoutMs,
    // RESOURCE_EXHAUSTED is retried by `call`, within the caller's budget and with finer backoff.
    interceptors: [retries.interceptor],
  });
  const client = new Client({ connection, namespace: opts.namespace });
  const calls = createTemporalCalls(client, {
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    callTimeoutMs: opts.callTimeoutMs,
    ...(opts.busyBudgetMs !== undefined ? { busyBudgetMs: opts.busyBudgetMs } : {}),
  });
  return {
    ...calls,
    connection,
    taskQueue: opts.taskQueue,
    async ping() {
      await connection.withDeadline(Date.now() + opts.callTimeoutMs, () =>
        connection.workflowService.getSystemInfo({}),
      );
    },
    async pingWorker() {
      const nonce = randomUUID();
      await connection.withDeadline(Date.now() + opts.callTimeoutMs, () =>
        client.workflow.execute<PingWorkflow>(PING_WORKFLOW_TYPE, {
          taskQueue: opts.taskQueue,
          workflowId: pingWorkflowId(nonce),
          args: [nonce],
          workflowExecutionTimeout: `${opts.callTimeoutMs} ms`,
        }),
      );
    },
    close: () => retries.close(connection),
  };
}
