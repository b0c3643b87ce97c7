/**
 * Everything the queue workflow keeps, carried across continue-as-new (compressed, and without what
 * only a run in progress needs: carry-codec.ts): the engine's state, what
 * the engine does not model (PR titles and authors, submission ids, test branches and their commits,
 * CI statuses, runner settings), the unread inbox, and bounded memories (recent update results for
 * idempotency across runs, finished test runs for getMergeQueueTestingDetails).
 *
 * Invariants: plain JSON; every collection is bounded (finished PRs leave `prs` once notified, at most
 * MAX_FINISHED_RUNS finished runs, MAX_UPDATE_RESULTS update results and MAX_REJECTED_ADMISSIONS
 * rejections are kept), except `unstored`, which holds transitions only while the event log cannot be
 * written.
 */
import type { TransitionEvent } from '../../events/types';
import {
  initialState,
  type EngineEvent,
  type QueueConfigPatch,
  type QueueState,
  type StallCause,
} from '../../engine';
import type {
  AdmissionState,
  CommitMessage,
  CommitStatusReport,
  HostHint,
  PrDetails,
  Readiness,
  ReasonDetail,
  RunnerSettings,
  SubmitResult,
  TestRunFinishedNotice,
} from '../../contract';

export const MAX_FINISHED_RUNS = 200;
export const MAX_UPDATE_RESULTS = 1_000;
export const MAX_EARLY_TARGETS = 1_000;
export const MAX_REJECTED_ADMISSIONS = 1_000;

export interface PrMeta {
  submissionId: string;
  title: string;
  author: string;
  baseBranch: string;
  /** Whether the caller chose the priority (Trunk's usedDefaultPriorityName otherwise). */
  explicitPriority: boolean;
  readiness: Readiness;
  /** Sequence number of the last transition sent to the PR's workflow. */
  notified: number;
  submittedAt: number;
  /** Who asked to cancel it (an API key's name), for its record; absent: nobody named. */
  cancelledBy?: string;
  /**
   * Its landed commit's title and body over the queue's template (the submit's, else its description's
   * `merge-commit-title:`; contract/commit-message.ts); absent: the template.
   */
  commitMessage?: CommitMessage;
  /** How it landed (the landing's proof), for its `merged` transition; absent until then. */
  landing?: { sha: string; testedTree: string | null; landedTree: string | null; rebased: boolean };
}

export type RunStatus = 'building' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

export interface RunMeta {
  runId: string;
  branchName: string | null;
  headSha: string | null;
  baseSha: string | null;
  createdAt: number;
  prs: number[];
  ahead: number[];
  bisection: boolean;
  status: RunStatus;
  runner: 'command' | 'statuses';
  /** The test-run workflow running the command, once its start was requested. */
  child: string | null;
  /** Its start is recorded in history (only then may it be cancelled). */
  childStarted: boolean;
  statuses: CommitStatusReport[];
  /** The host's tree of headSha when the branch was built: what a landing must put on the target. */
  headTree?: string;
  /**
   * The checks this run must pass when the host named them (GitHub: `.trunk/trunk.yaml` or the
   * target's protection); absent = the queue's requiredStatuses.
   */
  required?: { contexts: string[]; source: 'trunk_config' | 'branch_protection' };
  titles: Record<string, string>;
  /** Whether its test branch was deleted after it ended. */
  cleaned: boolean;
  /** Why it failed, for its PRs' records (reason-details.ts): the command, a conflict, a config problem. */
  detail?: ReasonDetail;
  /** Its result, when it arrived while the run was still building (run-result.ts). */
  early?: TestRunFinishedNotice['result'];
  /** When its branch was pushed, for a run whose checks the host keeps (GitHub): stall-watch.ts. */
  pushedAt?: number;
  /** Its required checks reported as not started (stall-watch.ts); absent: none. */
  stall?: { checks: string[]; cause: StallCause; since: number };
  /** Failed by its statuses, its failed tests being read from CI's uploads (ci-uploads.ts); absent: not. */
  readingUploads?: boolean;
  /** Failed by its statuses with no upload of CI's in this many seconds: run-level rules decided. */
  noUploadAfterSeconds?: number;
  /** Failed by its statuses and CI's uploads could not be read (the store failed past its retries). */
  uploadsUnreadable?: boolean;
  /** Its failed tests' latest passing commits on the target, [test, sha] (passed-on-target.ts); absent: none. */
  passedOnTarget?: [string, string][];
}

/** A submit recorded and not yet read (Admissions), or carried unread across continue-as-new. */
export interface SubmissionRequest {
  pr: number;
  submissionId: string;
  /** 0–255; null = the default (medium). */
  priority: number | null;
  noBatch: boolean;
  /** The head the submission is bound to (SubmitInput.expectedHeadSha). */
  expectedHeadSha?: string;
  /** SubmitInput.commitMessage. */
  commitMessage?: CommitMessage;
}

export interface Carried {
  engine: QueueState;
  runner: RunnerSettings;
  prs: Record<string, PrMeta>;
  runs: RunMeta[];
  inbox: EngineEvent[];
  deleted: boolean;
  updateResults: [string, SubmitResult | null][];
  /** Impacted targets uploaded before the PR was submitted (merge-action uploads on every push). */
  earlyTargets: { pr: number; headSha: string; targets: string[] | 'ALL' }[];
  /** Submissions refused after their update completed, for callers still waiting or retrying. */
  rejectedAdmissions: [string, Extract<AdmissionState, { state: 'rejected' }>][];
  /**
   * Transitions not yet stored in the event log, oldest first (side-effects.ts). Not bounded by
   * count: they leave only once stored.
   */
  unstored: TransitionEvent[];
  /**
   * The read projection's revision of the queue view (ADR 0016): moved by every drain and by the
   * delete, carried so it only grows. Absent in state carried from before it existed.
   */
  viewRevision?: number;
  /**
   * Hints that arrived while the queue was continuing as new, for the next run to read (at most
   * MAX_HELD_HINTS, else one `reconcile` reads everything). Absent when none.
   */
  heldHints?: HostHint[];
  /**
   * Submissions that arrived while the queue was continuing as new (ADR 0027), answered but not read:
   * the next run reads them first. At most MAX_DEFERRED_SUBMISSIONS; absent: none.
   */
  deferredSubmissions?: SubmissionRequest[];
}

export const MAX_HELD_HINTS = 100;

/** Submissions a closing queue answers and carries (ADR 0027); beyond, a submit is refused as before. */
export const MAX_DEFERRED_SUBMISSIONS = 200;

/** `held` with `h` added once; past MAX_HELD_HINTS, one reconcile stands for them all. */
export function holdHint(held: readonly HostHint[], h: HostHint): HostHint[] {
  if (held.some((k) => k.kind === 'reconcile')) return [...held];
  if (h.kind === 'reconcile' || held.length >= MAX_HELD_HINTS) return [{ kind: 'reconcile' }];
  const same = (k: HostHint) => JSON.stringify(k) === JSON.stringify(h);
  return held.some(same) ? [...held] : [...held, h];
}

export const DEFAULT_RUNNER: RunnerSettings = {
  requiredStatuses: null,
  createPrsForTestingBranches: false,
  commentsEnabled: false,
  commandsEnabled: false,
  statusCheckEnabled: false,
  extensionEnabled: false,
  enqueueingLabel: 'railyard-merge-queue-submit',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
  notReadyTimeoutHours: 24,
  testBranchConstructionMode: 'push_new_branch_from_temp',
};

/** A new queue's state: nothing queued, nothing carried over; `runner` over DEFAULT_RUNNER. */
export function initialCarried(config: QueueConfigPatch = {}, runner: Partial<RunnerSettings> = {}): Carried {
  return {
    engine: initialState(config),
    runner: { ...DEFAULT_RUNNER, ...runner },
    prs: {},
    runs: [],
    inbox: [],
    deleted: false,
    updateResults: [],
    earlyTargets: [],
    rejectedAdmissions: [],
    unstored: [],
  };
}

export function detailsOf(
  meta: PrMeta,
  headSha: string,
  priority: number,
  priorityName: string,
  noBatch: boolean,
): PrDetails {
  return {
    title: meta.title,
    headSha,
    baseBranch: meta.baseBranch,
    author: meta.author,
    priorityValue: priority,
    priorityName,
    usedDefaultPriorityName: meta.explicitPriority ? priorityName : 'medium',
    noBatch,
    readiness: meta.readiness,
  };
}

/** Keeps the newest `max` items. */
export function bounded<T>(items: T[], max: number): T[] {
  return items.length > max ? items.slice(items.length - max) : items;
}
