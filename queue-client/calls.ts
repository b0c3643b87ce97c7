/**
 * Deadline-bounded calls to Temporal: every call the queue client makes goes through `call`, so a
 * stopped server or worker ends it with a QueueClientError `unavailable` after `callTimeoutMs` instead
 * of a hang.
 *
 * Flow control: Temporal admits at most 10 in-flight updates per workflow run, and buffers one query
 * per workflow while a workflow task runs; beyond that it answers RESOURCE_EXHAUSTED, which is an
 * answer from a live server, not an outage. So updates and queries of one workflow pass a gate in this
 * process (UPDATE_SLOTS and QUERY_SLOTS at a time, first come first served, slots.ts), and a
 * RESOURCE_EXHAUSTED that still happens (other processes share the limits) is retried here with
 * full-jitter backoff, never by the gRPC layer's coarse one. Both waits come out of the busy budget
 * rather than the call timeout (`busy` when it runs out); a retried update carries the same update id,
 * so Temporal applies it once.
 *
 * An update whose attempt reaches its deadline is still admitted at Temporal and waits its turn behind
 * the workflow tasks ahead of it: on a loaded machine a burst to one queue can keep it waiting longer
 * than the call timeout while the queue works through the burst. So a caller that can tell whether the
 * workflow is moving (`moving`: a worker holds its task, or the task was scheduled less than a call
 * timeout ago, and it is not failing) has its update waited on again, holding its slot (Temporal still
 * counts it in flight), while the workflow moves and the busy budget lasts. A worker that is gone
 * leaves the task waiting, so the update is `unavailable` at its deadline as before; so is one whose
 * workflow cannot be read (Temporal itself is gone).
 *
 * Invariants: each attempt has the call deadline (or the caller's longer one, never past the busy
 * budget when it is a wait on a moving workflow); the busy budget is never less than the call timeout;
 * a slot is released however the call ends; an update is waited on again only after its workflow was
 * seen moving.
 */
import type { Client } from '@temporalio/client';
import { QueueClientError } from './errors';
import { isExhausted, isUnavailable } from './grpc-status';
import { createSlots } from './slots';

/**
 * A call that updates or queries one workflow (give one of the two): it waits for one of that
 * workflow's slots, and RESOURCE_EXHAUSTED is retried, both within the busy budget.
 */
export interface CallOptions {
  updateOf?: string;
  queryOf?: string;
  /**
   * Each attempt's deadline instead of `callTimeoutMs`, for a caller off the request path that can wait
   * out a worker's workflow task (a query is answered after the task in flight). Never below it.
   */
  timeoutMs?: number;
  /**
   * For an update: whether its workflow is moving, asked after an attempt reached its deadline; true
   * has the update waited on again within the busy budget (see the module comment).
   */
  moving?: () => Promise<boolean>;
}

export interface TemporalCalls {
  client: Client;
  /** The namespace visibility listings ask in. */
  namespace: string;
  /** Where the workflows this client starts run; a client without one starts none. */
  taskQueue?: string;
  callTimeoutMs: number;
  /** How long a call may wait for a busy workflow (its slots and RESOURCE_EXHAUSTED retries). */
  busyBudgetMs: number;
  /** Runs `fn` with the call deadline; timeouts and connection failures become `unavailable`. */
  call<T>(what: string, fn: () => Promise<T>, options?: CallOptions): Promise<T>;
}

/** Below Temporal's 10 in-flight updates per run, leaving room for other processes. */
export const UPDATE_SLOTS = 8;
/** Temporal's buffer of queries waiting for a running workflow task holds one. */
export const QUERY_SLOTS = 1;
/** The busy budget when none is given: a burst of hundreds of submits to one queue. */
export const DEFAULT_BUSY_BUDGET_MS = 60_000;

/** A wait on a moving workflow shorter than this is not worth starting: the budget is spent. */
const MIN_MOVING_WAIT_MS = 1_000;

/** Full jitter: a uniform wait up to 25 ms doubling per attempt, at most 1 s. */
const backoffMs = (attempt: number) => Math.random() * Math.min(1_000, 25 * 2 ** attempt);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createTemporalCalls(
  client: Client,
  opts: {
    namespace: string;
    taskQueue?: string;
    callTimeoutMs: number;
    /** Default DEFAULT_BUSY_BUDGET_MS, never less than the call timeout. */
    busyBudgetMs?: number;
  },
): TemporalCalls {
  const { callTimeoutMs } = opts;
  const busyBudgetMs = Math.max(opts.busyBudgetMs ?? DEFAULT_BUSY_BUDGET_MS, callTimeoutMs);
  const busy = (what: string, budgetMs: number) => new QueueClientError({ kind: 'busy', what, budgetMs });
  /**
   * Whether the workflow moves. RESOURCE_EXHAUSTED ("Workflow is busy": its state is locked by the
   * work in flight) is the server saying it moves; a question Temporal does not answer in time is a no.
   */
  const isMoving = async (moving: () => Promise<boolean>) => {
    try {
      return await client.connection.withDeadline(Date.now() + callTimeoutMs, moving);
    } catch (err) {
      return isExhausted(err);
    }
  };
  const attempts = async <T>(
    what: string,
    fn: () => Promise<T>,
    budgetMs: number,
    timeoutMs: number,
    moving?: () => Promise<boolean>,
  ): Promise<T> => {
    const busyUntil = Date.now() + budgetMs;
    let deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.connection.withDeadline(deadline, fn);
      } catch (err) {
        if (isExhausted(err)) {
          const wait = backoffMs(attempt);
          if (Date.now() + wait >= busyUntil) throw busy(what, budgetMs);
          await sleep(wait);
          deadline = Date.now() + timeoutMs;
          continue;
        }
        if (isUnavailable(err)) {
          const unavailable = new QueueClientError({ kind: 'unavailable', what, timeoutMs }, { cause: err });
          if (!moving || Date.now() + MIN_MOVING_WAIT_MS > busyUntil || !(await isMoving(moving)))
            throw unavailable;
          deadline = Math.min(Date.now() + timeoutMs, busyUntil);
          continue;
        }
        throw err;
      }
    }
  };
  const updateSlots = createSlots(UPDATE_SLOTS);
  const querySlots = createSlots(QUERY_SLOTS);
  const call = async <T>(what: string, fn: () => Promise<T>, options: CallOptions = {}): Promise<T> => {
    const workflowId = options.updateOf ?? options.queryOf;
    const timeoutMs = Math.max(options.timeoutMs ?? callTimeoutMs, callTimeoutMs);
    if (workflowId === undefined) return attempts(what, fn, timeoutMs, timeoutMs);
    const started = Date.now();
    const slots = options.updateOf !== undefined ? updateSlots : querySlots;
    const release = await slots(workflowId, started + busyBudgetMs);
    if (!release) throw busy(what, busyBudgetMs);
    try {
      const budgetMs = Math.max(busyBudgetMs, timeoutMs) - (Date.now() - started);
      return await attempts(what, fn, budgetMs, timeoutMs, options.moving);
    } finally {
      release();
    }
  };
  return {
    client,
    namespace: opts.namespace,
    ...(opts.taskQueue !== undefined ? { taskQueue: opts.taskQueue } : {}),
    callTimeoutMs,
    busyBudgetMs,
    call,
  };
}
