/**
 * The HTTPS executor protocol (issue 24, ADR 0014): the paths and bodies an executor and the API
 * exchange. Both sides import this file, so they cannot disagree on a shape; the API validates every
 * body it receives against these schemas.
 *
 * An executor authenticates every request with `Authorization: Bearer <executor credential>`:
 *  - POST  announce                 what it is (host, slots, sandbox); answers its name
 *  - POST  jobs/claim               long poll: a job (200) or none within the wait (204)
 *  - GET   jobs/<id>/content        the run's git bundle
 *  - POST  jobs/<id>/heartbeat      answers whether to go on or stop the run (cancelled, gone)
 *  - PUT   jobs/<id>/report         the packed run report (run-report.ts), application/octet-stream
 *  - POST  jobs/<id>/failure        the run could not be run (a kind from FAILURE_KINDS)
 * A job id names one attempt of one run's executeTestRun activity: once Temporal retried the activity,
 * the old id is unknown (404) and its report is refused, never counted.
 */
import { z } from 'zod';

export const EXECUTOR_API_PREFIX = '/v1/executor';

export const ExecutorAnnouncementSchema = z.object({
  host: z.string().min(1).max(255),
  slots: z.number().int().min(1).max(256),
  sandbox: z.string().min(1).max(200),
  network: z.string().min(1).max(100),
});
export type ExecutorAnnouncementBody = z.infer<typeof ExecutorAnnouncementSchema>;

/** What an executor is told to run: the executeTestRun input without the content token (the API keeps it). */
export const JobRunSchema = z.object({
  runId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
  branchName: z.string(),
  headSha: z.string().regex(/^[0-9a-f]{40,64}$/),
  command: z.string(),
  junitGlobs: z.array(z.string()).optional(),
  timeoutMs: z.number().int().nonnegative(),
  network: z.boolean().optional(),
  /**
   * Run only these tests where the command supports it (issue 28); the engine keeps at most 10 ids of at
   * most 256 characters (engine/failed-tests.ts), bounded again here as the executor reads them.
   */
  onlyTests: z
    .array(
      z
        .string()
        .min(1)
        .max(256)
        // eslint-disable-next-line no-control-regex
        .regex(/^[^\u0000-\u001f\u007f]+$/),
    )
    .max(10)
    .optional(),
});
export type JobRun = z.infer<typeof JobRunSchema>;

export const ClaimedJobSchema = z.object({
  id: z.uuid(),
  /** Temporal's attempt of the activity (1 first): logged, so a retried run is told apart. */
  attempt: z.number().int().min(1),
  run: JobRunSchema,
});
export type ClaimedJob = z.infer<typeof ClaimedJobSchema>;

export const HeartbeatAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('continue') }),
  /** cancelled: the workflow cancelled the run; gone: the attempt timed out or the run ended. */
  z.object({ action: z.literal('stop'), reason: z.enum(['cancelled', 'gone']) }),
]);
export type HeartbeatAnswer = z.infer<typeof HeartbeatAnswerSchema>;

/**
 * Why a run could not be run, each with what the control plane does with it: content_gone (the run
 * ended, its content with it) fails the activity for good; the others are the executor's fault and are
 * retried (on this or another executor) within the activity's attempts.
 */
export const FAILURE_KINDS = {
  content_gone: { type: 'ContentGone', nonRetryable: true },
  sandbox_network_down: { type: 'SandboxNetworkDown', nonRetryable: false },
  sandbox_setup_failed: { type: 'SandboxSetupFailed', nonRetryable: false },
  executor_error: { type: 'ExecutorError', nonRetryable: false },
} as const;
export type FailureKind = keyof typeof FAILURE_KINDS;

export const JobFailureSchema = z.object({
  kind: z.enum(Object.keys(FAILURE_KINDS) as [FailureKind, ...FailureKind[]]),
  message: z.string().max(2000),
});
export type JobFailure = z.infer<typeof JobFailureSchema>;

/** The longest a claim waits for a job before answering 204 (the executor asks again at once). */
export const CLAIM_WAIT_MS = 20_000;
