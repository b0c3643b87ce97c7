/**
 * The API's Temporal client. The connection is lazy so the API starts (and /readyz reports the
 * problem) while Temporal is down. Every call goes through `withDeadline`, so a stopped server or worker
 * gives the HTTP caller a clear 503 instead of a hung request.
 *
 * Flow control: Temporal admits at most 10 in-flight updates per workflow run, and buffers one query
 * per workflow while a workflow task runs; beyond that it answers RESOURCE_EXHAUSTED, which is an
 * answer from a live server, not an outage. So updates and queries of one workflow pass a gate in this
 * process (UPDATE_SLOTS and QUERY_SLOTS at a time, first come first served), and a RESOURCE_EXHAUSTED
 * that still happens (other API processes share the limits) is retried here with full-jitter backoff,
 * never by the gRPC layer's coarse one. Both waits come out of the busy budget rather than the call
 * timeout; a retried update carries the same update id, so Temporal applies it once.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { PING_WORKFLOW_TYPE, pingWorkflowId, type PingWorkflow } from '../../contract';
import { unavailable } from '../errors';

/**
 * A call that updates or queries one workflow (give one of the two): it waits for one of that
 * workflow's slots, and RESOURCE_EXHAUSTED is retried, both within the busy budget.
 */
export interface CallOptions {
  updateOf?: string;
  queryOf?: string;
}

export interface TemporalGateway {
  client: Client;
  connection: Connection;
  taskQueue: string;
  callTimeoutMs: number;
  /** How long a call may wait for a busy workflow (its slots and RESOURCE_EXHAUSTED retries). */
  busyBudgetMs: number;
  /** Runs `fn` with the call deadline; timeouts and connection failures become a 503 AppError. */
  call<T>(what: string, fn: () => Promise<T>, options?: CallOptions): Promise<T>;
  ping(): Promise<void>;
  pingWorker(): Promise<void>;
  close(): Promise<void>;
}

/** Below Temporal's 10 in-flight updates per run, leaving room for other API processes. */
export const UPDATE_SLOTS = 8;
/** Temporal's buffer of queries waiting for a running workflow task holds one. */
export const QUERY_SLOTS = 1;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */, 1 /* CANCELLED */]);

function codes(err: unknown): number[] {
  const found: number[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') found.push(code);
  }
  return found;
}

function isUnavailable(err: unknown): boolean {
  if (codes(err).some((c) => UNAVAILABLE_CODES.has(c))) return true;
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (e.name === 'ServiceError' || /deadline|UNAVAILABLE|connect/i.test(e.message)) return true;
  return false;
}

const isExhausted = (err: unknown) => codes(err).includes(RESOURCE_EXHAUSTED);

/** Full jitter: a uniform wait up to 25 ms doubling per attempt, at most 1 s. */
const backoffMs = (attempt: number) => Math.random() * Math.min(1_000, 25 * 2 ** attempt);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per-workflow FIFO slots; a waiter not admitted by its deadline gets null. */
function createSlots(perKey: number) {
  const lines = new Map<string, { active: number; waiting: (() => void)[] }>();
  return (key: string, until: number): Promise<(() => void) | null> => {
    let line = lines.get(key);
    if (!line) lines.set(key, (line = { active: 0, waiting: [] }));
    const own = line;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = own.waiting.shift();
      // The slot passes to the next waiter as is; only an idle line is dropped.
      if (next) next();
      else if (--own.active === 0) lines.delete(key);
    };
    if (own.active < perKey) {
      own.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(
        () => {
          own.waiting.splice(own.waiting.indexOf(admit), 1);
          resolve(null);
        },
        Math.max(0, until - Date.now()),
      );
      own.waiting.push(admit);
    });
  };
}

export function createTemporalGateway(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  callTimeoutMs: number;
  /** Default 60 s (a burst of hundreds of submits to one queue), never less than the call timeout. */
  busyBudgetMs?: number;
}): TemporalGateway {
  const grpcRetry = defaultGrpcRetryOptions();
  const connection = Connection.lazy({
    address: opts.address,
    connectTimeout: opts.callTimeoutMs,
    // RESOURCE_EXHAUSTED is retried by `call`, within the caller's budget and with finer backoff.
    interceptors: [
      makeGrpcRetryInterceptor({
        delayFunction: grpcRetry.delayFunction,
        retryableDecider: (attempt, status) =>
          Number(status.code) !== RESOURCE_EXHAUSTED && grpcRetry.retryableDecider(attempt, status),
      }),
    ],
  });
  const client = new Client({ connection, namespace: opts.namespace });
  const busyBudgetMs = Math.max(opts.busyBudgetMs ?? 60_000, opts.callTimeoutMs);
  const busy = (what: string, ms: number) =>
    unavailable(`The merge queue was too busy to answer ${what} within ${ms} ms; retry later.`);
  const attempts = async <T>(what: string, fn: () => Promise<T>, budgetMs: number): Promise<T> => {
    const busyUntil = Date.now() + budgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await connection.withDeadline(Date.now() + opts.callTimeoutMs, fn);
      } catch (err) {
        if (isExhausted(err)) {
          const wait = backoffMs(attempt);
          if (Date.now() + wait >= busyUntil) throw busy(what, budgetMs);
          await sleep(wait);
          continue;
        }
        if (isUnavailable(err)) {
          throw unavailable(
            `The merge queue did not answer ${what} within ${opts.callTimeoutMs} ms; Temporal or the railyard worker is unavailable, retry later.`,
          );
        }
        throw err;
      }
    }
  };
  const updateSlots = createSlots(UPDATE_SLOTS);
  const querySlots = createSlots(QUERY_SLOTS);
  const call = async <T>(what: string, fn: () => Promise<T>, options: CallOptions = {}): Promise<T> => {
    const workflowId = options.updateOf ?? options.queryOf;
    if (workflowId === undefined) return attempts(what, fn, opts.callTimeoutMs);
    const started = Date.now();
    const slots = options.updateOf !== undefined ? updateSlots : querySlots;
    const release = await slots(workflowId, started + busyBudgetMs);
    if (!release) throw busy(what, busyBudgetMs);
    try {
      return await attempts(what, fn, busyBudgetMs - (Date.now() - started));
    } finally {
      release();
    }
  };
  return {
    client,
    connection,
    taskQueue: opts.taskQueue,
    callTimeoutMs: opts.callTimeoutMs,
    busyBudgetMs,
    call,
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
    close: () => connection.close(),
  };
}
