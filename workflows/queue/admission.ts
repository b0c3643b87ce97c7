/**
 * Admission: how a submitted PR enters the queue (ADR 0005). The submit update completes in the
 * workflow task that accepts it: it records the request and answers with the submission id. The PR is
 * read afterwards by an activity and enqueued (enqueue.ts) or rejected; callers learn the outcome from
 * getAdmissionsQuery. The read is started by the loop's turn (`startReads`, from runtime.ts `intake`),
 * not by the update's handler: a signal in the same workflow task may be handed to the workflow before
 * or after the update (received.ts), and the task's commands must not depend on which. An update that spans workflow tasks can be delivered again after a lost task and
 * then fails replay for good, so no update of the queue waits on an activity.
 *
 * Invariants:
 * - At most one pending admission per PR; a second submit while it is pending updates its priority and
 *   noBatch in place and answers with the same submission id.
 * - A submit of a queued PR is a resubmission (same submission id): new settings are applied in place,
 *   the same settings change nothing (no event). A submit of a PR that left the queue (merged, failed,
 *   cancelled: its metadata is gone) is a new submission. The API sends every request with its own
 *   update id, so these rules, not update ids, are what make a repeated submit harmless.
 * - A pending admission ends admitted or rejected before continue-as-new (its read starts in the turn
 *   after its submit and is tracked work, which continue-as-new waits for), so pending admissions are
 *   never carried; except a submit that arrives while the queue continues as new (ADR 0027): it is
 *   answered, carried unread in `deferredSubmissions` (bounded) and read first by the next run.
 * - A submission bound to a head (`expectedHeadSha`, a `/trunk merge` comment's) is admitted only if
 *   the PR read has that head; a later bound request for a pending admission rebinds it. Once queued,
 *   a push cancels the PR (`PR_PUSHED_TO`, host-reader.ts), so the queue tests exactly the bound head.
 * - `pending` lasts until the PR's first transition reached its workflow, so a read right after the
 *   submit finds this submission; rejections are remembered (bounded) for callers that retry.
 */
import { uuid4 } from '@temporalio/workflow';
import type { PullRequestSnapshot } from '../../activities/merge-queue/types';
import { DEFAULT_PRIORITY, isInQueue } from '../../engine';
import {
  repositoryLabel,
  type AdmissionState,
  type QueueRejection,
  type SubmitInput,
  type SubmitResult,
} from '../../contract';
import {
  bounded,
  MAX_DEFERRED_SUBMISSIONS,
  MAX_REJECTED_ADMISSIONS,
  type PrMeta,
  type SubmissionRequest,
} from './carried';
import type { QueueContext } from './context';
import { enqueueSubmission } from './enqueue';
import { chooseCommitMessage } from '../../contract';

/** Why a submission bound to `expected` was refused: the PR's head is now `actual`. */
export const headMoved = (pr: number, expected: string, actual: string): string =>
  `The head of pull request #${pr} is now ${actual}, not ${expected} that the submission was given for; a new submission is needed to queue the new head.`;

export class Admissions {
  /** Requests whose PR is being read (or is about to be), by PR number. */
  private readonly pending = new Map<number, SubmissionRequest>();
  /** Requests whose read the loop has not started yet, in the order they came. */
  private readonly unread: SubmissionRequest[] = [];
  /** Admitted in this run; pending for callers until their first transition was delivered. */
  private readonly admitted = new Set<string>();

  constructor(
    private readonly ctx: QueueContext,
    /** Submissions whose PR workflow has received a transition (pr-notifier.ts). */
    private readonly delivered: ReadonlySet<string>,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  /** The requests being read (or about to be), deferred ones included. */
  get requests(): Iterable<SubmissionRequest> {
    return this.pending.values();
  }

  /** Whether a submission waits for the loop to start its read. */
  get waiting(): boolean {
    return this.unread.length > 0;
  }

  /** Records a submit; never awaits, and starts nothing (`startReads` does, in the loop's turn). */
  request({ pr, priority, noBatch, expectedHeadSha, commitMessage }: SubmitInput): SubmitResult {
    const pending = this.pending.get(pr);
    if (pending) {
      Object.assign(pending, { priority, noBatch });
      if (commitMessage !== undefined) pending.commitMessage = commitMessage;
      if (expectedHeadSha !== undefined) pending.expectedHeadSha = expectedHeadSha;
      return { submissionId: pending.submissionId, resubmitted: true };
    }
    const existing = this.queuedOrAdmitted(pr);
    if (existing) {
      // A new commit message applies to the builds and landings from now on (not an engine setting).
      const message = commitMessage && chooseCommitMessage(commitMessage, existing.commitMessage?.title);
      if (message) existing.commitMessage = message;
      // The same settings again (a client retry without an Idempotency-Key) change nothing.
      if (this.sameSettings(existing, { pr, priority, noBatch }))
        return { submissionId: existing.submissionId, resubmitted: true };
      existing.explicitPriority = priority !== null;
      this.ctx.push({ type: 'priorityChanged', pr, priority: priority ?? DEFAULT_PRIORITY, noBatch });
      return { submissionId: existing.submissionId, resubmitted: true };
    }
    const request = this.newRequest({ pr, priority, noBatch, expectedHeadSha, commitMessage });
    this.pending.set(pr, request);
    this.unread.push(request);
    return { submissionId: request.submissionId, resubmitted: false };
  }

  private newRequest({
    pr,
    priority,
    noBatch,
    expectedHeadSha,
    commitMessage,
  }: SubmitInput): SubmissionRequest {
    return {
      pr,
      submissionId: uuid4(),
      priority,
      noBatch,
      ...(expectedHeadSha !== undefined ? { expectedHeadSha } : {}),
      ...(commitMessage !== undefined ? { commitMessage } : {}),
    };
  }

  /**
   * Whether a submit that arrives while the queue continues as new can be answered and carried (ADR
   * 0027): a PR neither queued nor admitted (a pending one is updated in place), while fewer than
   * MAX_DEFERRED_SUBMISSIONS wait.
   */
  canDefer(pr: number): boolean {
    if (this.pending.has(pr)) return true;
    if (this.queuedOrAdmitted(pr)) return false;
    return (this.ctx.carried.deferredSubmissions?.length ?? 0) < MAX_DEFERRED_SUBMISSIONS;
  }

  /**
   * The PR's metadata when it is in the queue, or admitted but not yet decided (its `submitted` still
   * in the inbox), which counts as queued too.
   */
  private queuedOrAdmitted(pr: number): PrMeta | undefined {
    const { carried: c } = this.ctx;
    const existing = c.prs[String(pr)];
    return existing && (isInQueue(c.engine, pr) || this.admitted.has(existing.submissionId))
      ? existing
      : undefined;
  }

  /**
   * Records a submit while the queue continues as new (only when `canDefer`): answered now, carried in
   * `deferredSubmissions` and read by the next run. Its read is not started here: continue-as-new
   * waits for the reads in flight, and this one would put it off.
   */
  defer(input: SubmitInput): SubmitResult {
    if (this.pending.has(input.pr)) return this.request(input);
    const request = this.newRequest(input);
    const { carried: c } = this.ctx;
    c.deferredSubmissions = [...(c.deferredSubmissions ?? []), request];
    this.pending.set(request.pr, request);
    return { submissionId: request.submissionId, resubmitted: false };
  }

  /** Takes the submissions the previous run carried (`defer`), to be read in the first turn. */
  resumeDeferred(): void {
    const { carried: c } = this.ctx;
    for (const request of c.deferredSubmissions ?? []) {
      this.pending.set(request.pr, request);
      this.unread.push(request);
    }
    delete c.deferredSubmissions;
  }

  /** Starts the reads of the submissions recorded since the last turn, in the order they came. */
  startReads(): void {
    for (const request of this.unread.splice(0)) this.read(request);
  }

  private read(request: SubmissionRequest): void {
    const { key } = this.ctx;
    const { pr } = request;
    this.ctx.track(
      async () => {
        // A regular activity, never a local one: reads run side by side (a burst of submits) and beside
        // the side effects' local activity, and local activities in flight together resolve on replay
        // in scheduling order, not in the order they finished, so what the queue did after each would
        // differ (a nondeterminism seen after a worker was killed; side-effects.ts keeps one at a time).
        const snapshot = await this.ctx.git.readPullRequest({
          repo: key.repo,
          targetBranch: key.targetBranch,
          pr,
        });
        this.conclude(request, snapshot);
      },
      () =>
        this.reject(
          request,
          'unavailable',
          `Pull request #${pr} could not be read from ${repositoryLabel(key.repo)}; submit it again.`,
        ),
    );
  }

  /**
   * Whether a resubmission asks for exactly what the queued PR has (priority, its origin, noBatch).
   * Never while a change of those is still undecided in the inbox: the engine's entry is not yet what
   * the PR will have, and this request must still win over it.
   */
  private sameSettings(meta: PrMeta, { pr, priority, noBatch }: SubmitInput): boolean {
    const { carried: c } = this.ctx;
    const entry = c.engine.entries.find((e) => e.pr === pr);
    const undecided = c.inbox.some(
      (e) => (e.type === 'priorityChanged' || e.type === 'submitted') && e.pr === pr,
    );
    return (
      entry !== undefined &&
      !undecided &&
      entry.priority === (priority ?? DEFAULT_PRIORITY) &&
      meta.explicitPriority === (priority !== null) &&
      entry.noBatch === noBatch
    );
  }

  stateOf(submissionId: string): AdmissionState {
    for (const request of this.pending.values())
      if (request.submissionId === submissionId) return { state: 'pending' };
    if (this.admitted.has(submissionId) && !this.delivered.has(submissionId)) return { state: 'pending' };
    const rejected = this.ctx.carried.rejectedAdmissions.find(([id]) => id === submissionId);
    return rejected ? rejected[1] : { state: 'settled' };
  }

  private conclude(request: SubmissionRequest, snapshot: PullRequestSnapshot): void {
    const { carried: c, key } = this.ctx;
    const label = repositoryLabel(key.repo);
    if (c.deleted)
      return this.reject(
        request,
        'deleted',
        `The merge queue for ${label} branch "${key.targetBranch}" has been deleted.`,
      );
    if (!snapshot.found)
      return this.reject(request, 'not_found', `Pull request #${request.pr} was not found in ${label}.`);
    if (snapshot.testBranch)
      return this.reject(
        request,
        'invalid',
        `Pull request #${request.pr} is one of railyard's test PRs (from ${snapshot.testBranch}); submit the PRs it tests instead.`,
      );
    if (request.expectedHeadSha !== undefined && snapshot.headSha !== request.expectedHeadSha)
      return this.reject(
        request,
        'invalid',
        headMoved(request.pr, request.expectedHeadSha, snapshot.headSha),
      );
    this.pending.delete(request.pr);
    this.admitted.add(request.submissionId);
    enqueueSubmission(this.ctx, request, snapshot);
  }

  private reject(request: SubmissionRequest, rejection: QueueRejection, message: string): void {
    if (this.pending.get(request.pr) === request) this.pending.delete(request.pr);
    const { carried: c } = this.ctx;
    c.rejectedAdmissions = bounded(
      [...c.rejectedAdmissions, [request.submissionId, { state: 'rejected', rejection, message }]],
      MAX_REJECTED_ADMISSIONS,
    );
  }
}
