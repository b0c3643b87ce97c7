/**
 * The submit handler as it ran before admissions (admission.ts, ADR 0005): the update itself read the
 * PR and waited for its record, so it spanned several workflow tasks. Kept only so histories recorded
 * before the `submit-admission-v1` patch replay with the commands they recorded; new submissions never
 * take this path.
 *
 * Invariant: the same commands in the same order as the code that recorded those histories (the PR
 * read, then uuid4 for the submission id, then the events).
 */
import { condition, uuid4 } from '@temporalio/workflow';
import { DEFAULT_PRIORITY, isInQueue } from '../engine';
import { git } from './activity-proxies';
import { enqueueSubmission } from './enqueue';
import type { QueueContext } from './context';
import type { SubmitInput, SubmitResult } from './messages';

export interface LegacySubmit {
  (input: SubmitInput, notFound: (pr: number) => Error): Promise<SubmitResult>;
}

export function createLegacySubmit(
  rt: QueueContext & { applied(seq: number): boolean },
  delivered: ReadonlySet<string>,
): LegacySubmit {
  const { carried: c, key } = rt;
  /** First submissions still being admitted (PR number → submission id). */
  const admitting = new Map<number, string>();
  const settle = async (seq: number) => {
    await condition(() => rt.applied(seq));
  };

  return async ({ pr, priority, noBatch }, notFound) => {
    const snapshot = await git.readPullRequest({ repo: key.repo, targetBranch: key.targetBranch, pr });
    if (!snapshot.found) throw notFound(pr);
    const existing = c.prs[String(pr)];
    const beingAdmitted = admitting.get(pr);
    if (existing && (isInQueue(c.engine, pr) || beingAdmitted === existing.submissionId)) {
      existing.explicitPriority = priority !== null;
      await settle(rt.push({ type: 'priorityChanged', pr, priority: priority ?? DEFAULT_PRIORITY, noBatch }));
      if (beingAdmitted !== undefined) await condition(() => delivered.has(beingAdmitted));
      return { submissionId: existing.submissionId, resubmitted: true };
    }
    const submissionId = uuid4();
    admitting.set(pr, submissionId);
    const { seq } = enqueueSubmission(rt, { pr, submissionId, priority, noBatch }, snapshot);
    await settle(seq);
    await condition(() => delivered.has(submissionId));
    if (admitting.get(pr) === submissionId) admitting.delete(pr);
    return { submissionId, resubmitted: false };
  };
}
