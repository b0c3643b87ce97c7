/**
 * The words: what a person reads for every code railyard shows. The API speaks in codes (PR states,
 * reasons, queue states, test statuses and their reasons, quarantine overrides); the dashboard, the PR
 * comment and the demo show the word or clause for each code from here, and keep the code only in a
 * tooltip or the whole record, for those who search by it. Sentences about a PR are made of these
 * words in pr-reasons.ts.
 *
 * Rules: one entry per code of each union (`Record<Code, string>` and exhaustive switches, so a new
 * code does not compile without its words); no word is code-shaped (no ALL_CAPS_WITH_UNDERSCORES, no
 * snake_case), which test/unit/contract/words.test.ts checks for every entry. The flaky room's unions
 * are spelled here too (the contract imports only the engine) and the same test holds them equal to
 * flaky's own types, so a code added there fails the typecheck until it has words here. Pure.
 */
import type { BatchingMode, PrState, QueueMode, QueueStatus, Reason } from '../engine';

/** A PR state as a plain word (state chips, tables). */
const PR_STATE_WORDS: Record<PrState, string> = {
  not_ready: 'not ready',
  pending: 'queued',
  testing: 'testing',
  tests_passed: 'tests passed',
  pending_failure: 'failed, waiting on the PRs ahead',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A PR state as the start of a sentence that goes on with ": <why>." (pr-reasons.ts explainState). */
export const PR_STATE_LEADS: Record<PrState, string> = {
  not_ready: 'Not ready yet',
  pending: 'Queued',
  testing: 'Testing',
  tests_passed: 'Tests passed',
  pending_failure: 'Its test run failed, the queue waits for the PRs ahead of it before blaming one',
  merged: 'Merged',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** One clause per reason, lower case, to follow "because" or a colon. */
export const REASON_CLAUSES: Record<Reason, string> = {
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
  FLAKY_TESTS_RETRIED:
    'its test run failed only in tests known to be flaky, so those tests are run again before the failure counts',
  TEST_RUN_PASSED: 'its test run passed',
  QUARANTINED_FAILURES_IGNORED: 'its test run failed only in quarantined tests, which do not block',
  LATER_TEST_RUN_PASSED: 'a later run that contains it passed (optimistic merge)',
  KNOWN_RESULT_REUSED: 'the same tree already passed, so that result was reused',
  FLAKY_TESTS_PASSED_ON_RETRY:
    'its test run failed only in tests known to be flaky, and they passed when run again',
  UNRELATED_FAILURE_IN_BISECTION:
    'its bisection run failed only in tests that had not failed in its batch: a new failure, not evidence against it',
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required status failed on the test branch',
  TEST_RUN_COMMAND_FAILED: "the queue's test command failed on the test branch",
  TEST_RUN_TIMEOUT: 'its test run did not finish before the testing timeout',
  TEST_RUN_FAILED_BY_OPTIMIZATION: "the queue failed it from another run's result",
  START_TEST_RUN_INVALID_EVENT: 'the test branch could not be built: the target branch does not exist',
  START_TEST_RUN_MERGE_CONFLICT: 'it conflicts with the target branch or a PR ahead of it',
  START_TEST_RUN_CONFIG_NOT_FOUND:
    'the tested commit has no .railyard/merge-queue.json and the queue has no required statuses',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: "the tested commit's .railyard/merge-queue.json is invalid",
  START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES: 'the configuration names no required statuses',
  START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES: '.trunk/trunk.yaml has an invalid list of required statuses',
  START_TEST_RUN_CONFIG_BAD_VERSION: "the tested commit's .railyard/merge-queue.json has an unknown version",
  START_TEST_RUN_NO_REQUIRED_STATUSES:
    "no required checks are configured: set the queue's required statuses, the required statuses in .trunk/trunk.yaml, or required status checks on the branch",
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

/** Queue states as the dashboard lists them: the engine's, and `deleted` for a queue that is gone. */
const QUEUE_STATE_WORDS: Record<QueueStatus | 'deleted', string> = {
  running: 'running',
  paused: 'paused',
  draining: 'draining',
  switching_modes: 'switching modes',
  deleted: 'deleted',
};

const QUEUE_MODE_WORDS: Record<QueueMode, string> = {
  single: 'one line (single mode)',
  parallel: 'parallel lanes (parallel mode)',
};

const BATCHING_MODE_WORDS: Record<BatchingMode, string> = {
  fixed: 'batching',
  adaptive: 'adaptive batching',
};

/** flaky/classification's TestStatus (held equal by the words test). */
export type TestStatusCode = 'healthy' | 'flaky' | 'broken';
/** flaky/classification's ReasonCode, the `code` of a status reason `code:detail`. */
export type TestStatusReasonCode =
  | 'mixed_outcomes_same_commit'
  | 'stable_failure_rate'
  | 'manual_flag'
  | 'consecutive_failing_commits'
  | 'broken_rate'
  | 'recovered'
  | 'stale'
  | 'no_signal'
  | 'no_results';
/** flaky/quarantine's QuarantineOverride. */
export type QuarantineOverrideCode = 'UNSPECIFIED' | 'ALWAYS_QUARANTINE' | 'NEVER_QUARANTINE';
/** Why a test is quarantined (Trunk's `quarantine_setting`). */
export type QuarantineSettingCode = 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE';

const TEST_STATUS_WORDS: Record<TestStatusCode, string> = {
  healthy: 'healthy',
  flaky: 'flaky',
  broken: 'broken',
};

const OVERRIDE_WORDS: Record<QuarantineOverrideCode, string> = {
  UNSPECIFIED: 'no override',
  ALWAYS_QUARANTINE: 'always quarantine',
  NEVER_QUARANTINE: 'never quarantine',
};

const QUARANTINE_SETTING_WORDS: Record<QuarantineSettingCode, string> = {
  ALWAYS_QUARANTINE: 'by its override',
  AUTO_QUARANTINE: 'automatically, as it is flaky or broken',
};

const isKey = <K extends string>(words: Record<K, string>, code: string): code is K =>
  Object.hasOwn(words, code);

/** The word of a code, or the code itself when it is not one of the union (a newer server's). */
const wordOf =
  <K extends string>(words: Record<K, string>) =>
  (code: string): string =>
    isKey(words, code) ? words[code] : code;

export const prStateWord = wordOf(PR_STATE_WORDS);
export const queueStateWord = wordOf(QUEUE_STATE_WORDS);
export const queueModeWord = wordOf(QUEUE_MODE_WORDS);
export const batchingModeWord = wordOf(BATCHING_MODE_WORDS);
export const testStatusWord = wordOf(TEST_STATUS_WORDS);
export const overrideWord = wordOf(OVERRIDE_WORDS);
export const quarantineSettingWord = wordOf(QUARANTINE_SETTING_WORDS);

/** The reason's own clause, without detail; an unknown name is shown as itself. */
export const reasonClause = (reason: string): string =>
  isKey(REASON_CLAUSES, reason) ? REASON_CLAUSES[reason] : `reason ${reason}`;

/** A clause as a sentence: capital first letter, a full stop. */
export const asSentence = (clause: string): string =>
  `${clause.charAt(0).toUpperCase()}${clause.slice(1).replace(/\.$/, '')}.`;

/** A ratio as a person reads it: 0.15 reads "15 %" (one decimal at most). */
export const percentWord = (ratio: string | number): string => {
  const value = Number(ratio);
  return Number.isFinite(value) ? `${Math.round(value * 1000) / 10} %` : String(ratio);
};
/** "1 run", "20 runs". */
export const runsWord = (n: string | number): string => `${n} ${String(n) === '1' ? 'run' : 'runs'}`;
const percent = percentWord;
const runs = runsWord;
const inWindow = (w: string | undefined) => (w ? ` in the last ${w.replace(/h$/, ' h')}` : '');

/** The `code` of a stored `code:detail` status reason, and its detail. */
export function splitStatusReason(reason: string): { code: string; detail: string } {
  const at = reason.indexOf(':');
  return at < 0 ? { code: reason, detail: '' } : { code: reason.slice(0, at), detail: reason.slice(at + 1) };
}

/** Whether a reason code is one the words know (a newer server's may not be). */
export const isTestStatusReasonCode = (code: string): code is TestStatusReasonCode =>
  isKey(TEST_STATUS_REASON_CLAUSES, code);

/** A status reason code's own clause, without detail ("a person flagged it"). */
export const testStatusReasonClause = (code: TestStatusReasonCode): string =>
  TEST_STATUS_REASON_CLAUSES[code];

/**
 * Why a test has its status, from the `code:detail` reason the flaky service records
 * (flaky/classification/reason.ts): `stable_failure_rate:0.15>=0.10,n=20,w=72h` reads "it failed
 * 15 % of 20 runs in the last 72 h (flaky from 10 %)". A detail it cannot read leaves the code's
 * own clause.
 */
export function testStatusReasonText(reason: string): string {
  const { code, detail } = splitStatusReason(reason);
  const fields = detail.split(',');
  const named = (name: string) =>
    fields.find((f) => f.startsWith(`${name}=`))?.slice(name.length + 1) ?? undefined;
  if (!isKey(TEST_STATUS_REASON_CLAUSES, code)) return `${reason.replace(/_/g, ' ')}`;
  switch (code) {
    case 'mixed_outcomes_same_commit': {
      const sha = named('sha');
      return sha ? `it passed and failed on the same commit ${sha}` : TEST_STATUS_REASON_CLAUSES[code];
    }
    case 'stable_failure_rate': {
      // "<rate>>=<threshold>,n=<n>" or, short of the sample, "<rate>,n=<n><<min>".
      const judged = /^([\d.]+)>=([\d.]+)$/.exec(fields[0] ?? '');
      const n = named('n');
      const short = n ? /^(\d+)<(\d+)$/.exec(n) : null;
      if (short)
        return `${runs(short[1]!)} so far${inWindow(named('w'))}, ${short[2]} needed to judge (failed ${percent(fields[0] ?? '')})`;
      if (judged && n)
        return `it failed ${percent(judged[1]!)} of ${runs(n)}${inWindow(named('w'))} (flaky from ${percent(judged[2]!)})`;
      return TEST_STATUS_REASON_CLAUSES[code];
    }
    case 'consecutive_failing_commits':
      return /^\d+$/.test(detail)
        ? `it failed on the last ${detail} commits of the stable branches, and passed on none of them`
        : TEST_STATUS_REASON_CLAUSES[code];
    case 'broken_rate': {
      const n = named('n');
      return n && /^[\d.]+$/.test(fields[0] ?? '')
        ? `it failed ${percent(fields[0]!)} of ${runs(n)}`
        : TEST_STATUS_REASON_CLAUSES[code];
    }
    case 'manual_flag':
    case 'recovered':
    case 'stale':
    case 'no_signal':
    case 'no_results':
      return TEST_STATUS_REASON_CLAUSES[code];
  }
}

/** Each status reason's clause when its detail says nothing more (or cannot be read). */
const TEST_STATUS_REASON_CLAUSES: Record<TestStatusReasonCode, string> = {
  mixed_outcomes_same_commit: 'it passed and failed on the same commit',
  stable_failure_rate: 'its failure rate on the stable branches is high',
  manual_flag: 'a person flagged it',
  consecutive_failing_commits: 'it failed on several commits of the stable branches in a row',
  broken_rate: 'it fails nearly every run',
  recovered: 'it passed long enough after failing',
  stale: 'it has no recent results',
  no_signal: 'nothing in its results makes it flaky or broken',
  no_results: 'it has no results yet',
};

/** The words of every code union, for the test that each has words and none is code-shaped. */
export const ALL_WORDS = {
  prStates: PR_STATE_WORDS,
  prStateLeads: PR_STATE_LEADS,
  reasons: REASON_CLAUSES,
  queueStates: QUEUE_STATE_WORDS,
  queueModes: QUEUE_MODE_WORDS,
  batchingModes: BATCHING_MODE_WORDS,
  testStatuses: TEST_STATUS_WORDS,
  testStatusReasons: TEST_STATUS_REASON_CLAUSES,
  overrides: OVERRIDE_WORDS,
  quarantineSettings: QUARANTINE_SETTING_WORDS,
} as const;

/** A code-shaped word: ALL_CAPS_WITH_UNDERSCORES or snake_case. */
export const CODE_SHAPED = /\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/;

/**
 * A test run named by what it tested: "the bisection run of #3 alone", "the batch run #1 #2 #3",
 * "the run of #3".
 */
export function testRunName(run: { prs: readonly number[]; bisection: boolean }): string {
  const prs = run.prs.map((n) => `#${n}`).join(' ');
  if (run.bisection)
    return run.prs.length === 1 ? `the bisection run of ${prs} alone` : `the bisection run of ${prs}`;
  return run.prs.length > 1 ? `the batch run ${prs}` : `the run of ${prs}`;
}
