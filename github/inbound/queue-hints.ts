/**
 * QueueHinter: finds running queue workflows in Temporal visibility and signals them a HostHint
 * (contract queue-messages.ts `hostHintSignal`).
 *
 * Rules and invariants:
 * - Queue workflows are found by visibility: `WorkflowType = queueWorkflow`, `ExecutionStatus =
 *   'Running'`, the REPOSITORY search attribute (and TARGET_BRANCH for a target hint), in pages of at
 *   most `pageSize`, at most `maxPages` pages per call (a call past that reports `truncated`).
 * - Tenant safety: `hintRepository` is given the organisation that owns the repository and looks only
 *   at workflow ids under `queue/<that organisation>/` (contract ids.ts), in the query and
 *   again on every id it gets back (which must parse as a queue id of that organisation and
 *   repository). `reconcileHost` lists every running queue of the host, and signals only those its
 *   `admit` callback accepts (the owning organisation's, see owner-lookup.ts).
 * - Each workflow id is signalled at most once per call (its current run: continued queues keep
 *   their id). A queue that ended since it was listed (`queue_not_found`) is counted as `ended`
 *   and otherwise ignored; any other failure to signal is counted as `failed` and reported to
 *   `onError`, and the other queues are still signalled.
 * - Every Temporal call goes through the queue client (queue-client/), so it has a deadline and a
 *   Temporal outage cannot hold a caller (the API's shutdown waits for the receiver's work) beyond it.
 *   The queries are queue-client/visibility.ts's (every value escaped), the id check contract/ids.ts's
 *   `parseQueueWorkflowId`.
 */
import {
  hostHintSignal,
  parseQueueWorkflowId,
  repositoryLabel,
  type HostHint,
  type QueueKey,
  type RepositoryKey,
} from '../../contract';
import { isQueueProblem, runningQueuesQuery, type QueueClient } from '../../queue-client';

export interface HintResult {
  /** Queues signalled. */
  hinted: number;
  /** Queues that had ended by the time they were signalled. */
  ended: number;
  /** Queues a signal could not reach. */
  failed: number;
  /** True when the listing stopped at `maxPages` with more to come. */
  truncated: boolean;
}

export interface QueueHinter {
  /**
   * Signals `hint` to the running queues of `repository` that `organisationId` holds (a `target`
   * hint: only the queues of that branch). `spellings` are the repository's names as queues may have
   * been created with them (GitHub's, the stored one); visibility compares them exactly.
   */
  hintRepository(
    target: { organisationId: string; spellings: readonly RepositoryKey[] },
    hint: HostHint,
  ): Promise<HintResult>;
  /** Sends `{kind:'reconcile'}` to every running queue of `host` that `admit` accepts. */
  reconcileHost(
    host: string,
    admit: (queues: readonly QueueKey[]) => Promise<boolean[]>,
  ): Promise<HintResult>;
}

export interface QueueHinterDeps {
  queues: Pick<QueueClient, 'listWorkflows' | 'signalQueue'>;
  /** Visibility page size (default 100). */
  pageSize?: number;
  /** Pages per call at most (default 20). */
  maxPages?: number;
  /** Signals sent at once (default 10). */
  concurrency?: number;
  onError: (err: unknown, message: string) => void;
}

const sameRepository = (a: RepositoryKey, b: RepositoryKey) =>
  a.host.toLowerCase() === b.host.toLowerCase() &&
  a.owner.toLowerCase() === b.owner.toLowerCase() &&
  a.name.toLowerCase() === b.name.toLowerCase();

export function createQueueHinter(deps: QueueHinterDeps): QueueHinter {
  const pageSize = deps.pageSize ?? 100;
  const maxPages = deps.maxPages ?? 20;
  const concurrency = deps.concurrency ?? 10;
  const { queues } = deps;

  /** Every page of running queue ids the query selects, handed to `onPage` as it arrives. */
  async function listRunning(
    query: string,
    onPage: (ids: string[]) => Promise<void>,
  ): Promise<{ truncated: boolean }> {
    let nextPageToken: Uint8Array | undefined;
    for (let page = 0; page < maxPages; page++) {
      const response = await queues.listWorkflows('listQueues', query, {
        pageSize,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      await onPage(response.runs.map((r) => r.workflowId));
      if (response.nextPageToken === null) return { truncated: false };
      nextPageToken = response.nextPageToken;
    }
    return { truncated: true };
  }

  async function signalAll(ids: readonly string[], hint: HostHint, result: HintResult): Promise<void> {
    for (let i = 0; i < ids.length; i += concurrency) {
      await Promise.all(
        ids.slice(i, i + concurrency).map(async (workflowId) => {
          try {
            await queues.signalQueue('hostHint', workflowId, hostHintSignal, hint);
            result.hinted++;
          } catch (err) {
            if (isQueueProblem(err, 'queue_not_found')) {
              result.ended++;
              return;
            }
            result.failed++;
            deps.onError(err, `could not signal a ${hint.kind} hint to queue workflow ${workflowId}`);
          }
        }),
      );
    }
  }

  return {
    async hintRepository({ organisationId, spellings }, hint) {
      const result: HintResult = { hinted: 0, ended: 0, failed: 0, truncated: false };
      const labels = [...new Set(spellings.map(repositoryLabel))];
      if (labels.length === 0) return result;
      const query = runningQueuesQuery({
        organisationId,
        repositoryLabels: labels,
        ...(hint.kind === 'target' ? { targetBranch: hint.branch } : {}),
      });
      const seen = new Set<string>();
      const { truncated } = await listRunning(query, async (ids) => {
        const mine = ids.filter((id) => {
          const key = parseQueueWorkflowId(id);
          if (key === null || key.organisationId !== organisationId || seen.has(id)) return false;
          if (!spellings.some((s) => sameRepository(s, key.repo))) return false;
          if (hint.kind === 'target' && key.targetBranch !== hint.branch) return false;
          seen.add(id);
          return true;
        });
        await signalAll(mine, hint, result);
      });
      result.truncated = truncated;
      return result;
    },

    async reconcileHost(host, admit) {
      const result: HintResult = { hinted: 0, ended: 0, failed: 0, truncated: false };
      const query = runningQueuesQuery({ host });
      const seen = new Set<string>();
      const { truncated } = await listRunning(query, async (ids) => {
        const queues = ids.flatMap((workflowId) => {
          const key = parseQueueWorkflowId(workflowId);
          if (key === null || seen.has(workflowId) || key.repo.host.toLowerCase() !== host.toLowerCase())
            return [];
          seen.add(workflowId);
          return [{ workflowId, key }];
        });
        if (queues.length === 0) return;
        const admitted = await admit(queues.map((q) => q.key));
        const reconcile: HostHint = { kind: 'reconcile' };
        await signalAll(
          queues.filter((_, i) => admitted[i] === true).map((q) => q.workflowId),
          reconcile,
          result,
        );
      });
      result.truncated = truncated;
      return result;
    },
  };
}
