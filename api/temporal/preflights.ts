/**
 * The preflight as the API drives it (routes/preflight): one preflightWorkflow per queue, started on
 * request and read back by the queue's address; statuses reported through the API are forwarded to it.
 *
 * Rules:
 * - A start while the queue's preflight runs answers that one (Temporal's USE_EXISTING conflict
 *   policy on the queue's preflight id): a caller cannot run more than one per queue at a time.
 * - A finished preflight is read back from Temporal (its result, kept for the namespace's retention);
 *   one that failed or was ended answers `problem` with a sentence.
 * - Every id carries the caller's organisation (contract/ids.ts), so another organisation's preflight
 *   does not exist for the caller.
 * - Forwarding a status is best effort: no preflight running is the common case, not an error.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  PREFLIGHT_STATUS_SIGNAL,
  PREFLIGHT_WORKFLOW_TYPE,
  preflightWorkflowId,
  type PreflightResult,
  type PreflightWorkflowInput,
} from '../../contract';
import type { Organisation } from '../../stores/api-keys';
import type { QueueAddress } from '../routes/merge-queue/service';

export type PreflightState =
  /** `waitsUntil`: about when the wait ends (it starts once the branch is pushed); null when unknown. */
  | { state: 'running'; startedAt: Date; waitsUntil: Date | null }
  | { state: 'done'; startedAt: Date; result: PreflightResult };

export interface PreflightService {
  start(
    org: Organisation,
    queue: QueueAddress,
    settings: Pick<
      PreflightWorkflowInput,
      'requiredStatuses' | 'testBranchPrefix' | 'waitMs' | 'draftPullRequest'
    >,
  ): Promise<PreflightState>;
  read(org: Organisation, queue: QueueAddress): Promise<PreflightState | null>;
  forwardStatus(org: Organisation, report: QueueAddress & { sha: string; context: string }): Promise<void>;
}

/** Between two reads of the host's checks. */
export const PREFLIGHT_POLL_MS = 5_000;
/** Past the wait, what pushing and deleting may take before Temporal ends the preflight. */
const RUN_SLACK_MS = 10 * 60_000;

export function createPreflightService(deps: {
  client: Client;
  taskQueue: string;
  pollMs?: number;
}): PreflightService {
  const idOf = (org: Organisation, queue: QueueAddress) =>
    preflightWorkflowId({ organisationId: org.id, repo: queue.repo, targetBranch: queue.targetBranch });

  async function read(org: Organisation, queue: QueueAddress): Promise<PreflightState | null> {
    const handle = deps.client.workflow.getHandle(idOf(org, queue));
    let described;
    try {
      described = await handle.describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
    const startedAt = described.startTime;
    switch (described.status.name) {
      case 'RUNNING': {
        // The wait starts once the branch is pushed, a moment after the start: an estimate.
        const waitMs = Number((described.memo as { waitMs?: unknown } | undefined)?.waitMs);
        const waitsUntil = Number.isFinite(waitMs) ? new Date(startedAt.getTime() + waitMs) : null;
        return { state: 'running', startedAt, waitsUntil };
      }
      case 'COMPLETED':
        return { state: 'done', startedAt, result: (await handle.result()) as PreflightResult };
      default:
        return {
          state: 'done',
          startedAt,
          result: {
            kind: 'problem',
            detail: `The preflight ended without an answer (${described.status.name.toLowerCase()}); run it again, and if it ends so again, ask your railyard operator (the worker's log names why).`,
          },
        };
    }
  }

  return {
    async start(org, queue, settings) {
      const input: PreflightWorkflowInput = {
        key: { organisationId: org.id, repo: queue.repo, targetBranch: queue.targetBranch },
        ...settings,
        pollMs: deps.pollMs ?? PREFLIGHT_POLL_MS,
      };
      await deps.client.workflow.start(PREFLIGHT_WORKFLOW_TYPE, {
        workflowId: idOf(org, queue),
        taskQueue: deps.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowExecutionTimeout: settings.waitMs + RUN_SLACK_MS,
        // Read back by `read`, so a start that joins a running preflight answers that one's wait.
        memo: { waitMs: settings.waitMs },
      });
      const state = await read(org, queue);
      if (state === null) throw new Error('the preflight just started cannot be found');
      return state;
    },
    read,
    async forwardStatus(org, report) {
      try {
        await deps.client.workflow
          .getHandle(idOf(org, report))
          .signal(PREFLIGHT_STATUS_SIGNAL, { sha: report.sha, context: report.context });
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return;
        throw err;
      }
    },
  };
}
