/**
 * The fold that turns a submission's notices into its record (PullRequestRecord): the PR workflow
 * keeps it in memory, the read projection (events/store/pr-records.ts) keeps the same fold in
 * PostgreSQL. One pure function for both, so a record read from either is the same record.
 *
 * Rules and invariants:
 * - Transitions apply in `seq` order exactly once: a duplicate or stale one is ignored, one that
 *   arrives early waits in `pending` until the ones before it arrived.
 * - A details refresh applies only on top of the transition it was made after (`afterSeq`); one made
 *   after a transition that has not arrived yet waits in `early` (only the newest), and a terminal
 *   record takes none.
 * - The timeline keeps its first entry and the latest MAX_TIMELINE - 1.
 */
import type { PrState } from '../engine';
import type {
  PrDetailsRefresh,
  PrTransitionNotice,
  PullRequestRecord,
  PullRequestWorkflowInput,
} from './pull-request-messages';

/** The engine's terminal states (the contract takes only the engine's types). */
const TERMINAL: ReadonlySet<PrState> = new Set<PrState>(['merged', 'failed', 'cancelled']);
const isTerminal = (state: PrState) => TERMINAL.has(state);

/** A record keeps its whole timeline; past this it keeps the first and the latest entries. */
export const MAX_TIMELINE = 500;

export interface RecordFold {
  record: PullRequestRecord;
  /** Transitions applied: the latest seq. */
  applied: number;
  /** Transitions that arrived before one they follow, by seq order. */
  pending: PrTransitionNotice[];
  /** A refresh made after a transition that has not arrived yet (only the newest). */
  early: PrDetailsRefresh | null;
}

export function newRecordFold(
  input: Pick<PullRequestWorkflowInput, 'submissionId' | 'prNumber' | 'submittedAt'>,
): RecordFold {
  return {
    record: {
      id: input.submissionId,
      prNumber: input.prNumber,
      state: 'not_ready',
      stateChangedAt: input.submittedAt,
      reason: 'USER_REQUESTED',
      details: null,
      skipTheLine: false,
      isCurrentlySubmittedToQueue: true,
      verifiedByTestRun: null,
      timeline: [],
    },
    applied: 0,
    pending: [],
    early: null,
  };
}

function applyTransition(record: PullRequestRecord, n: PrTransitionNotice): void {
  const t = n.transition;
  record.state = t.to;
  record.stateChangedAt = t.at;
  record.reason = t.reason;
  // A PR that left the queue is reported without a head; the record keeps the one it had.
  record.details =
    n.details.headSha || !record.details ? n.details : { ...n.details, headSha: record.details.headSha };
  record.skipTheLine = n.details.priorityValue === 0;
  record.isCurrentlySubmittedToQueue = !isTerminal(t.to);
  if (t.to === 'merged' && t.testRunId) record.verifiedByTestRun = t.testRunId;
  if (n.testedOn) record.testedOn = n.testedOn;
  if (n.mergedAs) record.mergedAs = n.mergedAs;
  if (t.convictedBy && t.convictedBy.length > 0) record.convictedBy = [...t.convictedBy];
  // A stall is about the run the PR was in: any move ends the report.
  delete record.stalledChecks;
  record.timeline.push(t);
  if (record.timeline.length > MAX_TIMELINE) record.timeline.splice(1, 1);
}

/** Applies `r` to the record; false when the record is terminal (it takes no refresh). */
function applyRefresh(record: PullRequestRecord, r: PrDetailsRefresh): boolean {
  if (isTerminal(record.state)) return false;
  record.details = { ...r.details, headSha: r.details.headSha || record.details?.headSha || '' };
  if (r.testedOn) record.testedOn = r.testedOn;
  if (r.stalledChecks) record.stalledChecks = r.stalledChecks;
  else if (r.stalledChecks === null) delete record.stalledChecks;
  return true;
}

/**
 * Takes one transition notice (of this submission). Answers the notices applied by it, in order (none
 * for a duplicate or an early one), and how many refreshes were applied with them (a waiting one).
 */
export function foldTransition(
  f: RecordFold,
  notice: PrTransitionNotice,
): { applied: PrTransitionNotice[]; refreshes: number } {
  const done: PrTransitionNotice[] = [];
  let refreshes = 0;
  if (notice.seq <= f.applied || f.pending.some((p) => p.seq === notice.seq))
    return { applied: done, refreshes };
  f.pending.push(notice);
  f.pending.sort((a, b) => a.seq - b.seq);
  // Deliveries may arrive out of order after retries; apply the contiguous prefix.
  while (f.pending.length > 0 && f.pending[0]!.seq === f.applied + 1) {
    const next = f.pending.shift()!;
    f.applied += 1;
    applyTransition(f.record, next);
    done.push(next);
  }
  if (f.early && f.early.afterSeq <= f.applied) {
    if (f.early.afterSeq === f.applied && applyRefresh(f.record, f.early)) refreshes += 1;
    f.early = null;
  }
  return { applied: done, refreshes };
}

/** Takes one details refresh (of this submission); true when it was applied now. */
export function foldRefresh(f: RecordFold, r: PrDetailsRefresh): boolean {
  if (r.afterSeq < f.applied) return false;
  if (r.afterSeq === f.applied) return applyRefresh(f.record, r);
  if (!f.early || r.afterSeq >= f.early.afterSeq) f.early = r;
  return false;
}
