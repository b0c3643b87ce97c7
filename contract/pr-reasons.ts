/**
 * Why a pull request is where it is, in words. The queue records a structured `ReasonDetail` with a
 * transition when it knows more than the reason's name (the failing tests, the statuses, the PR and
 * files of a conflict, who cancelled); this module turns reason + detail into the one sentence a
 * person reads. It is the only place reasons become words: the API's records (api/temporal/wire.ts),
 * the webhooks' payloads, the PR's comment on GitHub (github/presentation/pr-comment.ts) and the demo.
 *
 * Rules: every reason the engine can give has a clause (`Record<Reason, …>`, so a new reason does not
 * compile without one); a detail, when present, makes the clause concrete. Pure and deterministic.
 * Invariants: details are bounded (MAX_* below) because they travel in workflow payloads; they hold
 * names only (tests, files, statuses, API key names), never a log line or a secret.
 */
import type { PrState, Reason } from '../engine';

export const MAX_DETAIL_NAMES = 10;
export const MAX_DETAIL_TEXT = 300;

export type ReasonDetail =
  /** The queue's test command failed: its exit code (null: a signal) and the failing tests it reported. */
  | { kind: 'command_failed'; exitCode: number | null; failedTests: string[]; moreFailedTests: number }
  /** Required statuses that failed, and those that had not passed (at the testing timeout). */
  | { kind: 'statuses'; failed: string[]; missing: string[] }
  /** The test branch could not be built: `pr` did not apply in `files` on the target plus `onTopOf`. */
  | { kind: 'conflict'; pr: number; files: string[]; onTopOf: number[] }
  /** Who asked for it (a cancellation): an API key's name and organisation. */
  | { kind: 'actor'; actor: string }
  /** What the runner or host said, for reasons without a better structure (a config problem). */
  | { kind: 'problem'; text: string }
  /**
   * Proof of a landing (a `merged` transition): the commit the target branch was moved to, the tree
   * its passing run tested (null: landed without a test run, a direct merge), and the tree the target
   * branch held when read back right after the landing (null: it could not be read). `rebased`: a
   * parallel lane's PRs applied onto a tip another lane had moved, so the trees differ by that lane.
   */
  | { kind: 'landing'; sha: string; testedTree: string | null; landedTree: string | null; rebased?: boolean };

/** One clause per reason, lower case, to follow "because" or a colon. */
const CLAUSES: Record<Reason, string> = {
  USER_REQUESTED: 'a person asked for it',
  API_REQUESTED: 'a client of the API asked for it',
  TRUNK_ADMIN_REQUESTED: 'an administrator asked for it',
  AWAITING_MERGEABILITY:
    'its host does not allow it to merge yet: it conflicts with the target branch, needs its reviews or its own required checks, or is a draft',
  BASE_BRANCH_MISMATCH: "its base branch is not the queue's branch",
  PR_HEAD_CHANGED: 'a new commit was pushed; the new head is checked again',
  IMPACTED_TARGETS_MISSING: "the queue runs in parallel mode and waits for this PR's impacted targets",
  MERGE_ITEM_NOW_READY: 'it is ready and waits for a test slot',
  PREREQUISITE_MERGE_ITEM_FAILED: 'a PR it was tested on top of failed, so it is tested again without it',
  PREREQUISITE_MERGE_ITEM_CANCELLED:
    'a PR it was tested on top of was cancelled, so it is tested again without it',
  PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED:
    'a PR it was tested on top of was merged outside the queue, so it is tested again',
  MANUAL_PUSH_TO_TARGET_BRANCH: 'the target branch was pushed to outside the queue, so it is tested again',
  SKIP_THE_LINE_INTERRUPTED: 'an urgent PR skipped the line ahead of it, so it is tested again behind it',
  TESTS_RESTARTED_BY_USER: 'a person restarted its tests',
  TESTS_RESTARTED_BY_API_REQUEST: 'its tests were restarted through the API',
  BISECTION_REQUIRED: 'its batch failed, so it is tested in smaller groups to find the PR that broke it',
  PREREQUISITE_NOT_READY: 'a PR it was tested on top of is no longer ready, so it is tested again without it',
  IMPACTED_TARGETS_CHANGED: 'impacted targets changed, so the PRs it is tested with changed',
  TEST_TREE_CHANGED: "what it is tested on changed (the queue's mode or settings), so it is tested again",
  BISECTION_CLEARED:
    'the bisection of its failed batch found it good, so it is back at the front of the line to be tested on the current target',
  TEST_RUN_STARTED: 'its test run started',
  BISECTION_TEST_RUN_STARTED: 'a bisection run started to find the PR that broke its batch',
  TEST_RUN_PASSED: 'its test run passed',
  QUARANTINED_FAILURES_IGNORED: 'its test run failed only in quarantined tests, which do not block',
  LATER_TEST_RUN_PASSED: 'a later run that contains it passed (optimistic merge)',
  KNOWN_RESULT_REUSED: 'the same tree already passed, so that result was reused',
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required status failed on the test branch',
  TEST_RUN_COMMAND_FAILED: "the queue's test command failed on the test branch",
  TEST_RUN_TIMEOUT: 'its test run did not finish before the testing timeout',
  TEST_RUN_FAILED_BY_OPTIMIZATION: "the queue failed it from another run's result",
  START_TEST_RUN_INVALID_EVENT: 'the test branch could not be built: the target branch does not exist',
  START_TEST_RUN_MERGE_CONFLICT: 'it conflicts with the target branch or a PR ahead of it',
  START_TEST_RUN_CONFIG_NOT_FOUND:
    'the tested commit has no .railyard/merge-queue.json and the queue has no requiredStatuses',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: "the tested commit's .railyard/merge-queue.json is invalid",
  START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES: 'the configuration names no required statuses',
  START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES: '.trunk/trunk.yaml has an invalid merge.required_statuses',
  START_TEST_RUN_CONFIG_BAD_VERSION: "the tested commit's .railyard/merge-queue.json has an unknown version",
  START_TEST_RUN_NO_REQUIRED_STATUSES:
    'no required checks are configured: set requiredStatuses, .trunk/trunk.yaml merge.required_statuses, or required status checks on the branch',
  START_TEST_RUN_RETRY_EXHAUSTED: 'its test run could not be started after several attempts',
  START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED: 'draft PRs may not be queued',
  GITHUB_API_MERGE_PR_FAILED: 'GitHub refused the merge (branch protection or repository settings)',
  GITHUB_API_DIRECT_MERGE_PR_FAILED: 'GitHub refused the direct merge',
  PR_UPDATED_AT_MERGE_TIME: 'a new commit was pushed to it while it was being merged',
  MERGE_CONFLICT_AT_MERGE_TIME: 'it conflicted with the target branch when it was merged',
  LANDED_TREE_DIFFERS:
    'the queue refused to land it: the commit it would put on the target branch does not hold the tree its test run tested',
  MERGE_GRAPH_MERGE: 'the queue merged it after its tests passed',
  MERGE_GRAPH_DIRECT_MERGE: 'the queue merged it directly',
  MANUAL_MERGE: 'it was merged outside the queue',
  PR_CLOSED: 'it was closed',
  PR_PUSHED_TO: 'a new commit was pushed to it while it was queued',
  PR_BASE_BRANCH_CHANGED: 'its base branch changed',
  PR_CONVERTED_TO_DRAFT: 'it was converted to a draft',
  STACKED_PR_MEMBER_PUSHED_TO: 'a PR of its stack was pushed to',
  STACKED_PR_MEMBER_CLOSED: 'a PR of its stack was closed',
  STACKED_PR_MEMBER_MERGED: 'a PR of its stack was merged',
  STACKED_PR_MEMBER_BASE_BRANCH_CHANGED: 'a PR of its stack had its base branch changed',
};

const STATE_WORDS: Record<PrState, string> = {
  not_ready: 'Not ready yet',
  pending: 'Queued',
  testing: 'Testing',
  tests_passed: 'Tests passed',
  pending_failure: 'Its test run failed, the queue waits for the PRs ahead of it before blaming one',
  merged: 'Merged',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const isReason = (reason: string): reason is Reason => Object.hasOwn(CLAUSES, reason);

/** The reason's own clause, without detail; an unknown name is shown as itself. */
export const reasonClause = (reason: string): string =>
  isReason(reason) ? CLAUSES[reason] : `reason ${reason}`;

const list = (names: readonly string[], more = 0) => {
  const shown = names.join(', ');
  return more > 0 ? `${shown} and ${more} more` : shown;
};
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The clause for a reason made concrete by its detail. */
export function detailedClause(reason: string, detail?: ReasonDetail, targetBranch?: string): string {
  if (!detail) return reasonClause(reason);
  switch (detail.kind) {
    case 'command_failed': {
      const exit = detail.exitCode === null ? 'stopped by a signal' : `exit code ${detail.exitCode}`;
      const count = detail.failedTests.length + detail.moreFailedTests;
      const tests =
        count > 0
          ? `; failing ${plural(count, 'test', 'tests')}: ${list(detail.failedTests, detail.moreFailedTests)}`
          : '';
      return `${reasonClause(reason)} (${exit})${tests}`;
    }
    case 'statuses': {
      const parts: string[] = [];
      if (detail.failed.length > 0)
        parts.push(
          `required ${plural(detail.failed.length, 'status', 'statuses')} ${list(detail.failed)} failed on the test branch`,
        );
      if (detail.missing.length > 0)
        parts.push(
          `required ${plural(detail.missing.length, 'status', 'statuses')} ${list(detail.missing)} had not passed${reason === 'TEST_RUN_TIMEOUT' ? ' at the testing timeout' : ''}`,
        );
      return parts.length > 0 ? parts.join('; ') : reasonClause(reason);
    }
    case 'conflict': {
      const target = targetBranch ? `the target branch ${targetBranch}` : 'the target branch';
      const onTopOf =
        detail.onTopOf.length === 0
          ? target
          : `${list(detail.onTopOf.map((n) => `#${n}`))} (tested ahead of it on ${targetBranch ?? 'the target branch'})`;
      const files =
        detail.files.length > 0
          ? ` in ${plural(detail.files.length, 'file', 'files')} ${list(detail.files)}`
          : '';
      return `#${detail.pr} conflicts with ${onTopOf}${files}`;
    }
    case 'actor':
      return `${detail.actor} asked for it`;
    case 'problem':
      return `${reasonClause(reason)}: ${detail.text.replace(/\.$/, '')}`;
    case 'landing':
      return `${reasonClause(reason)}; ${landingClause(detail, targetBranch ?? 'the target branch')}`;
  }
}

/** What a landing's proof says: whether the target branch holds the tested tree. */
function landingClause(d: Extract<ReasonDetail, { kind: 'landing' }>, target: string): string {
  const short = (id: string) => id.slice(0, 12);
  if (d.testedTree === null) return `${target} moved to ${short(d.sha)} without a test run`;
  if (d.landedTree === null) return `${target} moved to ${short(d.sha)}, whose tree could not be read back`;
  if (d.rebased)
    return `${target} moved to ${short(d.sha)}, rebased onto another lane's merge: tree ${short(d.landedTree)}, tested ${short(d.testedTree)}`;
  if (d.landedTree === d.testedTree)
    return `${target} holds the tree its test run tested (${short(d.testedTree)})`;
  return `but ${target} held tree ${short(d.landedTree)} right after the landing, not the tested tree ${short(d.testedTree)}: it was changed outside the queue`;
}

export interface ExplainInput {
  state: PrState;
  reason: string;
  detail?: ReasonDetail;
  /** Why the host will not merge it yet, as the host said it (a not-ready PR). */
  blockedBy?: string;
  targetBranch?: string;
}

/** One sentence: the state in words, then why. */
export function explainState(input: ExplainInput): string {
  const submitted = ['USER_REQUESTED', 'API_REQUESTED', 'TRUNK_ADMIN_REQUESTED'].includes(input.reason);
  let why: string;
  if (input.state === 'not_ready' && input.blockedBy) why = input.blockedBy.replace(/\.$/, '');
  else if (input.state === 'not_ready' && submitted)
    why = 'it was submitted and is being checked for readiness';
  else why = detailedClause(input.reason, input.detail, input.targetBranch);
  return `${STATE_WORDS[input.state]}: ${why}.`;
}

/** Bounds a list of names for a detail: at most MAX_DETAIL_NAMES, each at most MAX_DETAIL_TEXT long. */
export function boundedNames(names: readonly string[]): { names: string[]; more: number } {
  const kept = names.slice(0, MAX_DETAIL_NAMES).map((n) => n.slice(0, MAX_DETAIL_TEXT));
  return { names: kept, more: Math.max(0, names.length - kept.length) };
}
