/**
 * The queue workflow's message handlers. Validators are synchronous and reject what cannot apply (an
 * unknown PR, a non-empty queue on delete, a deleted queue) without touching history. Handlers only
 * record what arrived (signals: `receive`; submissions: Admissions; other updates: events pushed for
 * the main loop) and start nothing: no activity, no timer, no side effect (received.ts says why). Every
 * update then waits for the loop's next turn (or for its event to be applied, which is one), which
 * comes in the same activation: every update completes in the workflow task that accepted it (ADR
 * 0005), after that turn's commands, and what needs an activity (reading a submitted PR) happens after
 * the update, reported through a query (admission.ts). Update results are remembered by update id across continue-as-new, so a
 * retried request is answered with its first result and not applied twice. The API sends a fresh update
 * id with every request and one id per Idempotency-Key (api/routes/merge-queue/update-id.ts), so only a
 * keyed retry repeats an id; a repeated request without a key is made harmless by state (admission.ts,
 * and a cancel or restart of a PR not in the queue is refused with Trunk's 404).
 */
import {
  ApplicationFailure,
  condition,
  currentUpdateInfo,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { isInQueue, testRunView } from '../../engine';
import {
  cancelUpdate,
  commitStatusSignal,
  hostHintSignal,
  deleteQueueUpdate,
  getAdmissionsQuery,
  getQueueQuery,
  getTestRunQuery,
  repositoryLabel,
  restartUpdate,
  setImpactedTargetsUpdate,
  submitUpdate,
  testRunFinishedSignal,
  updateQueueUpdate,
  MAX_DETAIL_TEXT,
  type QueueRejection,
  type SubmitInput,
  type SubmitResult,
} from '../../contract';
import { headMoved, type Admissions } from './admission';
import { bounded, MAX_EARLY_TARGETS, MAX_UPDATE_RESULTS } from './carried';
import { commitMessageRefusal } from './commit-budget';
import type { QueueContext } from './context';
import { settingsOf, snapshotOf, testRunDetailsOf } from './projections';
import type { Received } from './received';
import type { SignalRate } from './signal-rate';
import { withinTargetsBudget } from './targets-budget';

const reject = (type: QueueRejection, message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

/** What the handlers need beyond the context: whether the loop has decided an event they pushed. */
export interface HandlerContext extends QueueContext {
  applied(seq: number): boolean;
  /** The queue is continuing as new: it takes no change until the next run. */
  readonly closing: boolean;
  /** Records a signal's content for the loop's next turn (received.ts). */
  receive(item: Received): void;
  /** Resolves after the loop's next turn. */
  turn(): Promise<void>;
  /** Submissions: recorded here, read from the loop. */
  readonly admissions: Admissions;
  /** Counts the signals that arrive (signal-rate.ts). */
  readonly signals: Pick<SignalRate, 'note'>;
}

export function registerHandlers(queue: HandlerContext): void {
  const { carried: c, key } = queue;
  const label = `${repositoryLabel(key.repo)} branch "${key.targetBranch}"`;
  const open = () => {
    if (c.deleted) throw reject('deleted', `The merge queue for ${label} has been deleted.`);
    // A change now would start work that puts continue-as-new off again (queue-workflow.ts); the
    // queue client sends it again, to the next run.
    if (queue.closing)
      throw reject('continuing', `The merge queue for ${label} is continuing as new; ask again in a moment.`);
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
    await condition(() => queue.applied(seq));
  };
  const { admissions } = queue;

  setHandler(
    submitUpdate,
    async (input) => {
      const seen = remembered();
      if (queue.closing) {
        // Answered and carried to the next run (ADR 0027); no turn to wait for: the loop is closing.
        const deferred = seen?.result ?? admissions.defer(input);
        if (!seen?.result) remember(deferred);
        return deferred;
      }
      const result = seen?.result ?? admissions.request(input);
      if (!seen?.result) remember(result);
      await queue.turn();
      return result;
    },
    {
      validator: ({ pr, expectedHeadSha, commitMessage }: SubmitInput) => {
        // A closing queue still takes a new submission, which it carries (ADR 0027).
        if (!(queue.closing && !c.deleted && (remembered() || admissions.canDefer(pr)))) open();
        if (remembered()) return;
        // What the queue carries across continue-as-new is bounded in bytes (commit-budget.ts).
        const refusal = commitMessageRefusal(c, admissions.requests, pr, commitMessage);
        if (refusal !== null) throw reject('invalid', refusal);
        if (expectedHeadSha === undefined) return;
        // A queued PR keeps its head until a push cancels it: a submission bound to another refuses.
        const entry = c.engine.entries.find((e) => e.pr === pr);
        if (entry && entry.headSha !== expectedHeadSha)
          throw reject('invalid', headMoved(pr, expectedHeadSha, entry.headSha));
      },
    },
  );

  setHandler(
    cancelUpdate,
    async ({ pr, actor }) => {
      if (remembered()) return queue.turn();
      // Who asked is shown in the PR's record (pr-notifier.ts); the reason stays Trunk's.
      const meta = c.prs[String(pr)];
      if (meta && actor) meta.cancelledBy = actor.slice(0, MAX_DETAIL_TEXT);
      await settle(queue.push({ type: 'cancelled', pr, reason: 'USER_REQUESTED' }));
      remember(null);
    },
    { validator: ({ pr }: { pr: number; actor?: string }) => inQueue(pr) },
  );

  setHandler(
    restartUpdate,
    async ({ pr }) => {
      if (remembered()) return queue.turn();
      await settle(queue.push({ type: 'restarted', pr, reason: 'TESTS_RESTARTED_BY_API_REQUEST' }));
      remember(null);
    },
    { validator: ({ pr }: { pr: number }) => inQueue(pr) },
  );

  setHandler(
    setImpactedTargetsUpdate,
    async ({ pr, headSha, targets: sent }) => {
      const targets = withinTargetsBudget(c.engine, c.earlyTargets, pr, sent);
      if (!isInQueue(c.engine, pr)) {
        c.earlyTargets = bounded(
          [...c.earlyTargets.filter((t) => t.pr !== pr), { pr, headSha, targets }],
          MAX_EARLY_TARGETS,
        );
        return queue.turn();
      }
      const meta = c.prs[String(pr)];
      if (meta) meta.readiness.hasImpactedTargets = true;
      await settle(queue.push({ type: 'impactedTargetsSet', pr, headSha, targets }));
    },
    { validator: (_input) => open() },
  );

  setHandler(
    updateQueueUpdate,
    async ({ config, state, runner, deleteRequiredStatuses }) => {
      c.runner = { ...c.runner, ...runner, ...(deleteRequiredStatuses ? { requiredStatuses: null } : {}) };
      await settle(queue.push({ type: 'configUpdated', patch: config, ...(state ? { state } : {}) }));
      return settingsOf(c, key.targetBranch);
    },
    { validator: (_input) => open() },
  );

  setHandler(
    deleteQueueUpdate,
    async () => {
      c.deleted = true;
      c.viewRevision = (c.viewRevision ?? 0) + 1;
      await queue.turn();
    },
    {
      validator: () => {
        open();
        // Submissions still being read will enter the queue: they hold it too.
        const n = c.engine.entries.length + admissions.size;
        if (n > 0)
          throw reject(
            'not_empty',
            `The merge queue for ${label} still holds ${n} pull request${n > 1 ? 's' : ''}; cancel them before deleting it.`,
          );
      },
    },
  );

  // Signals: recorded only; the loop's turn takes them (received.ts).
  setHandler(commitStatusSignal, (report) => {
    queue.signals.note();
    queue.receive({ kind: 'status', report });
  });

  setHandler(hostHintSignal, (hint) => {
    queue.signals.note();
    queue.receive({ kind: 'hint', hint });
  });

  setHandler(testRunFinishedSignal, ({ runId, result }) => {
    queue.signals.note();
    queue.receive({ kind: 'runResult', runId, result });
  });

  setHandler(getQueueQuery, () => ({
    ...snapshotOf(c, key.targetBranch),
    generation: workflowInfo().firstExecutionRunId,
    revision: c.viewRevision ?? 0,
    deleted: c.deleted,
  }));
  setHandler(getAdmissionsQuery, (ids) =>
    Object.fromEntries(ids.slice(0, MAX_UPDATE_RESULTS).map((id) => [id, admissions.stateOf(id)])),
  );
  setHandler(getTestRunQuery, (testRunId) => {
    const run = c.runs.find((r) => r.runId === testRunId);
    if (!run) return null;
    // Keep the engine's view authoritative for a live run's status.
    const live = testRunView(c.engine, testRunId);
    const details = testRunDetailsOf(c, run);
    return live && live.status === 'in_progress' ? { ...details, status: 'in_progress' } : details;
  });
}
