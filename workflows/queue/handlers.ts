/**
 * The queue workflow's message handlers. Validators are synchronous and reject what cannot apply (an
 * unknown PR, a non-empty queue on delete, a deleted queue) without touching history. Handlers only
 * push events for the main loop and, where the caller needs the result, wait until the loop applied
 * them. Update results are remembered by update id across continue-as-new, so a retried request is
 * answered with its first result and not applied twice.
 */
import { ApplicationFailure, condition, currentUpdateInfo, setHandler, uuid4 } from '@temporalio/workflow';
import { DEFAULT_PRIORITY, isInQueue, testRunView } from '../engine';
import { repositoryLabel } from '../ids';
import { git } from './activity-proxies';
import { bounded, MAX_EARLY_TARGETS, MAX_UPDATE_RESULTS, type PrMeta } from './carried';
import {
  cancelUpdate,
  commitStatusSignal,
  deleteQueueUpdate,
  getQueueQuery,
  getTestRunQuery,
  restartUpdate,
  setImpactedTargetsUpdate,
  submitUpdate,
  testRunFinishedSignal,
  updateQueueUpdate,
  type QueueRejection,
  type SubmitResult,
} from './messages';
import { settingsOf, snapshotOf, testRunDetailsOf } from './projections';
import type { QueueRuntime } from './runtime';

const reject = (type: QueueRejection, message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

export function registerHandlers(rt: QueueRuntime): void {
  const { c, key } = rt;
  const label = `${repositoryLabel(key.repo)} branch "${key.targetBranch}"`;
  const open = () => {
    if (c.deleted) throw reject('deleted', `The merge queue for ${label} has been deleted.`);
  };
  const inQueue = (pr: number) => {
    // A retried request after continue-as-new gets its first answer, not a rejection.
    if (remembered()) return;
    open();
    if (!isInQueue(c.engine, pr))
      throw reject('not_found', `Pull request #${pr} is not in the merge queue for ${label}.`);
  };
  const remembered = (): { id: string; result: SubmitResult | null } | undefined => {
    const id = currentUpdateInfo()?.id;
    const hit = id ? c.updateResults.find(([k]) => k === id) : undefined;
    return hit ? { id: hit[0], result: hit[1] } : undefined;
  };
  const remember = (result: SubmitResult | null) => {
    const id = currentUpdateInfo()?.id;
    if (id) c.updateResults = bounded([...c.updateResults, [id, result]], MAX_UPDATE_RESULTS);
  };
  const settle = async (seq: number) => {
    await condition(() => rt.applied(seq));
  };
  /**
   * First submissions still being admitted (PR number → submission id). A second submit of the same PR
   * that resumes before the first one's event was applied must see the PR as queued: otherwise it would
   * replace the first submission's record and leave the first handler waiting forever for its delivery.
   */
  const admitting = new Map<number, string>();

  setHandler(
    submitUpdate,
    async ({ pr, priority, noBatch }) => {
      const seen = remembered();
      if (seen?.result) return seen.result;
      const snapshot = await git.readPullRequest({ repo: key.repo, targetBranch: key.targetBranch, pr });
      if (!snapshot.found)
        throw reject('not_found', `Pull request #${pr} was not found in ${repositoryLabel(key.repo)}.`);
      const existing = c.prs[String(pr)];
      const beingAdmitted = admitting.get(pr);
      if (existing && (isInQueue(c.engine, pr) || beingAdmitted === existing.submissionId)) {
        existing.explicitPriority = priority !== null;
        await settle(
          rt.push({ type: 'priorityChanged', pr, priority: priority ?? DEFAULT_PRIORITY, noBatch }),
        );
        // Like the first submission, answer once its record can be read.
        if (beingAdmitted !== undefined) await condition(() => rt.delivered.has(beingAdmitted));
        const result = { submissionId: existing.submissionId, resubmitted: true };
        remember(result);
        return result;
      }
      const meta: PrMeta = {
        submissionId: uuid4(),
        title: snapshot.title,
        author: snapshot.author,
        baseBranch: snapshot.baseBranch ?? key.targetBranch,
        explicitPriority: priority !== null,
        readiness: {
          hasImpactedTargets: false,
          requiresImpactedTargets: c.engine.config.mode === 'parallel',
          doesBaseBranchMatch: (snapshot.baseBranch ?? key.targetBranch) === key.targetBranch,
          gitHubMergeability:
            snapshot.mergeable === 'mergeable'
              ? 'mergeable'
              : snapshot.mergeable === 'conflicting'
                ? 'not_mergeable'
                : 'unspecified',
        },
        notified: 0,
        submittedAt: Date.now(),
      };
      c.prs[String(pr)] = meta;
      admitting.set(pr, meta.submissionId);
      const ready = meta.readiness.gitHubMergeability === 'mergeable' && meta.readiness.doesBaseBranchMatch;
      // The engine learns the target tip from the first PR it sees; later moves come from merges and CAS.
      if (c.engine.tipSha === null && snapshot.targetTipSha)
        rt.push({ type: 'targetBranchMoved', sha: snapshot.targetTipSha });
      let seq = rt.push({
        type: 'submitted',
        pr,
        headSha: snapshot.headSha,
        priority: priority ?? DEFAULT_PRIORITY,
        noBatch,
        ready,
        baseSha: snapshot.basedOnTargetTip ? snapshot.targetTipSha : null,
        reason: 'API_REQUESTED',
      });
      // Impacted targets uploaded before the submission (merge-action uploads on every push).
      const early = c.earlyTargets.find((t) => t.pr === pr && t.headSha === snapshot.headSha);
      if (early)
        seq = rt.push({ type: 'impactedTargetsSet', pr, headSha: early.headSha, targets: early.targets });
      c.earlyTargets = c.earlyTargets.filter((t) => t.pr !== pr);
      await settle(seq);
      // Answer once the PR's record exists, so a read right after the submit finds this submission.
      await condition(() => rt.delivered.has(meta.submissionId));
      if (admitting.get(pr) === meta.submissionId) admitting.delete(pr);
      const result = { submissionId: meta.submissionId, resubmitted: false };
      remember(result);
      return result;
    },
    { validator: ({ pr }) => (open(), void pr) },
  );

  setHandler(
    cancelUpdate,
    async ({ pr }) => {
      if (remembered()) return;
      await settle(rt.push({ type: 'cancelled', pr, reason: 'USER_REQUESTED' }));
      remember(null);
    },
    { validator: ({ pr }: { pr: number }) => inQueue(pr) },
  );

  setHandler(
    restartUpdate,
    async ({ pr }) => {
      if (remembered()) return;
      await settle(rt.push({ type: 'restarted', pr, reason: 'TESTS_RESTARTED_BY_API_REQUEST' }));
      remember(null);
    },
    { validator: ({ pr }: { pr: number }) => inQueue(pr) },
  );

  setHandler(
    setImpactedTargetsUpdate,
    async ({ pr, headSha, targets }) => {
      if (!isInQueue(c.engine, pr)) {
        c.earlyTargets = bounded(
          [...c.earlyTargets.filter((t) => t.pr !== pr), { pr, headSha, targets }],
          MAX_EARLY_TARGETS,
        );
        return;
      }
      const meta = c.prs[String(pr)];
      if (meta) meta.readiness.hasImpactedTargets = true;
      await settle(rt.push({ type: 'impactedTargetsSet', pr, headSha, targets }));
    },
    { validator: (_input) => open() },
  );

  setHandler(
    updateQueueUpdate,
    async ({ config, state, runner, deleteRequiredStatuses }) => {
      c.runner = { ...c.runner, ...runner, ...(deleteRequiredStatuses ? { requiredStatuses: null } : {}) };
      await settle(rt.push({ type: 'configUpdated', patch: config, ...(state ? { state } : {}) }));
      return settingsOf(c, key.targetBranch);
    },
    { validator: (_input) => open() },
  );

  setHandler(
    deleteQueueUpdate,
    () => {
      c.deleted = true;
    },
    {
      validator: () => {
        open();
        const n = c.engine.entries.length;
        if (n > 0)
          throw reject(
            'not_empty',
            `The merge queue for ${label} still holds ${n} pull request${n > 1 ? 's' : ''}; cancel them before deleting it.`,
          );
      },
    },
  );

  setHandler(commitStatusSignal, (report) => {
    const run = c.runs.find((r) => r.headSha === report.sha && r.runner === 'statuses');
    if (!run) return;
    run.statuses = bounded([...run.statuses, report], 200);
    rt.runner.judgeStatuses(run);
  });

  setHandler(testRunFinishedSignal, ({ runId, result }) => {
    const run = c.runs.find((r) => r.runId === runId);
    if (!run || run.status !== 'in_progress') return;
    switch (result.kind) {
      case 'finished':
        run.status = result.outcome === 'passed' ? 'succeeded' : 'failed';
        rt.push({ type: 'testRunFinished', runId, outcome: result.outcome, tests: result.tests });
        return;
      case 'config_problem':
        run.status = 'failed';
        rt.push({ type: 'testRunFailedToStart', runId, reason: result.reason, culpritPr: null });
        return;
      case 'error':
        run.status = 'failed';
        rt.push({
          type: 'testRunFailedToStart',
          runId,
          reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
          culpritPr: null,
        });
        return;
      case 'cancelled':
        return;
    }
  });

  setHandler(getQueueQuery, () => snapshotOf(c, key.targetBranch));
  setHandler(getTestRunQuery, (testRunId) => {
    const run = c.runs.find((r) => r.runId === testRunId);
    if (!run) return null;
    // Keep the engine's view authoritative for a live run's status.
    const live = testRunView(c.engine, testRunId);
    const details = testRunDetailsOf(c, run);
    return live && live.status === 'in_progress' ? { ...details, status: 'in_progress' } : details;
  });
}
