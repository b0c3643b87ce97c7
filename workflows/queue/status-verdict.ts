/**
 * The `statuses` runner's verdict: a run passes when every required context's latest status is
 * `success`, fails as soon as any required context's latest status is `failure` or `error`, and is
 * pending otherwise. Statuses for contexts that are not required are kept but never decide.
 *
 * Invariant: a run is judged only while in progress, so the engine hears of its outcome once.
 */
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import type { CommitStatusReport } from '../../contract';
import { finishWithUploadedTests } from './ci-uploads';

export function evaluateStatuses(
  required: string[],
  statuses: CommitStatusReport[],
): 'passed' | 'failed' | 'pending' {
  const latest = new Map<string, CommitStatusReport['state']>();
  for (const s of statuses) latest.set(s.context, s.state);
  if (required.some((ctx) => latest.get(ctx) === 'failure' || latest.get(ctx) === 'error')) return 'failed';
  return required.length > 0 && required.every((ctx) => latest.get(ctx) === 'success') ? 'passed' : 'pending';
}

/** The contexts that decide a run: the ones its host named, else the queue's requiredStatuses. */
export function requiredOf(ctx: Pick<QueueContext, 'carried'>, run: RunMeta): string[] {
  return run.required?.contexts ?? ctx.carried.runner.requiredStatuses ?? [];
}

/**
 * Ends a run in progress once its statuses decide it, and tells the engine; a failure only once CI's
 * uploads for its commit were read for its failed tests (ci-uploads.ts).
 */
export function judgeStatuses(ctx: QueueContext, run: RunMeta): void {
  if (run.status !== 'in_progress' || run.readingUploads) return;
  const verdict = evaluateStatuses(requiredOf(ctx, run), run.statuses);
  if (verdict === 'pending') return;
  if (verdict === 'failed' && run.headSha) {
    finishWithUploadedTests(ctx, run, run.headSha);
    return;
  }
  run.status = verdict === 'passed' ? 'succeeded' : 'failed';
  ctx.push({ type: 'testRunFinished', runId: run.runId, outcome: verdict });
}
