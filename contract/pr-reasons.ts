/**
 * Why a pull request is where it is, in words. The queue records a structured `ReasonDetail` with a
 * transition when it knows more than the reason's name (the failing tests, the statuses, the PR and
 * files of a conflict, who cancelled); this module turns reason + detail into the one sentence a
 * person reads, from the reasons' clauses and the states' words in words.ts (the one vocabulary). It
 * is the only place reasons become sentences: the API's records (api/temporal/wire.ts),
 * the webhooks' payloads, the PR's comment on GitHub (github/presentation/pr-comment.ts) and the demo.
 *
 * Rules: every reason the engine can give has a clause (words.ts, `Record<Reason, …>`, so a new reason
 * does not compile without one); a detail, when present, makes the clause concrete. Pure and deterministic.
 * Invariants: details are bounded (MAX_* below) because they travel in workflow payloads; they hold
 * names only (tests, files, statuses, API key names), never a log line or a secret.
 */
import type { PrState } from '../engine';
import type { StalledChecks } from './stalled-checks';
import { PR_STATE_LEADS, reasonClause } from './words';

export const MAX_DETAIL_NAMES = 10;
export const MAX_DETAIL_TEXT = 300;

export type ReasonDetail =
  /** The queue's test command failed: its exit code (null: a signal) and the failing tests it reported. */
  | { kind: 'command_failed'; exitCode: number | null; failedTests: string[]; moreFailedTests: number }
  /**
   * Required statuses that failed, and those that had not passed (at the testing timeout).
   * `noUploadAfterSeconds`: CI uploaded no test results for the test commit within that wait, so the
   * run-level rules decided (issue 28; absent: an upload was read, or none was looked for).
   * `uploadsUnreadable`: CI's uploads for the test commit could not be read (the flaky-test store
   * failed or timed out past its retries), so the run-level rules decided.
   */
  | {
      kind: 'statuses';
      failed: string[];
      missing: string[];
      noUploadAfterSeconds?: number;
      uploadsUnreadable?: true;
    }
  /**
   * The test branch could not be built: `pr` did not apply in `files` on the target plus `onTopOf`.
   * `clashesWith` (an addition): those of `onTopOf` whose own changes touch `files`, the PRs it clashed
   * with; [] = none of them, so the target branch's history; absent = the host could not tell.
   */
  | { kind: 'conflict'; pr: number; files: string[]; onTopOf: number[]; clashesWith?: number[] }
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
  | { kind: 'landing'; sha: string; testedTree: string | null; landedTree: string | null; rebased?: boolean }
  /**
   * A PR ejected for failing tests (issue 28): the failed tests that convicted it, the runs the verdict
   * rests on in the order they decided (bounded: MAX_DETAIL_NAMES, then `moreRuns`), and, when known,
   * the target-branch commit those tests last passed on. Test ids are names, bounded like any.
   */
  | {
      kind: 'test_evidence';
      tests: string[];
      moreTests: number;
      runs: EvidenceRun[];
      moreRuns: number;
      passedOnTarget?: string;
    };

/**
 * One run behind a verdict: how many PRs it tested (`prs`, its own PRs, not those under them), what
 * kind of run it was (a main-line `batch` or single run, a `bisection` chunk, a `flaky_retry` of known-
 * flaky tests), and whether it failed with the PR in its tree (`false`: a run without it, which did not
 * fail those tests and so cleared the PRs tested with it).
 */
export interface EvidenceRun {
  testRunId: string;
  prs: number;
  role: 'batch' | 'bisection' | 'flaky_retry';
  failed: boolean;
}

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
      if (detail.noUploadAfterSeconds !== undefined)
        parts.push(
          `CI uploaded no test results for the test commit within ${plural(detail.noUploadAfterSeconds, '1 second', `${detail.noUploadAfterSeconds} seconds`)}, so no failed test was known and the run as a whole decided`,
        );
      if (detail.uploadsUnreadable)
        parts.push(
          "railyard could not read the test results CI uploaded for the test commit (its flaky-test store failed; the worker's log says why), so no failed test was known and the run as a whole decided",
        );
      return parts.length > 0 ? parts.join('; ') : reasonClause(reason);
    }
    case 'conflict':
      return conflictClause(detail, targetBranch);
    case 'actor':
      return `${detail.actor} asked for it`;
    case 'problem':
      return `${reasonClause(reason)}: ${detail.text.replace(/\.$/, '')}`;
    case 'landing':
      return `${reasonClause(reason)}; ${landingClause(detail, targetBranch ?? 'the target branch')}`;
    case 'test_evidence':
      return `${reasonClause(reason)}: ${evidenceClause(detail, targetBranch ?? 'the target branch')}`;
  }
}

/** A run as the evidence names it: a short id and what it tested. */
function runLabel(r: EvidenceRun): string {
  const what =
    r.role === 'flaky_retry'
      ? `its known-flaky tests run again${r.prs === 1 ? '' : `, batch of ${r.prs}`}`
      : r.prs === 1
        ? 'alone'
        : r.role === 'batch'
          ? `batch of ${r.prs}`
          : `chunk of ${r.prs}`;
  return `${r.testRunId.slice(0, 8)} (${what})`;
}

/** "a, b and c" */
const and = (items: readonly string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * "`calc › divides` failed in runs 1f3a9c2e (batch of 8) and 7b0d4e11 (alone); without this PR it did not
 * fail in run 5c6d7e8f (chunk of 4); it passed on main at 0a1b2c3d4e5f": the tests, the runs, the evidence.
 */
function evidenceClause(d: Extract<ReasonDetail, { kind: 'test_evidence' }>, target: string): string {
  const count = d.tests.length + d.moreTests;
  const tests =
    count === 0
      ? 'its tests'
      : `${list(
          d.tests.map((t) => `\`${t}\``),
          d.moreTests,
        )}`;
  const failing = d.runs.filter((r) => r.failed).map(runLabel);
  const passing = d.runs.filter((r) => !r.failed).map(runLabel);
  const parts = [
    failing.length > 0
      ? `${tests} failed in ${plural(failing.length, 'run', 'runs')} ${and(failing)}${d.moreRuns > 0 ? ` and ${d.moreRuns} more` : ''}`
      : `${tests} failed`,
  ];
  if (passing.length > 0)
    parts.push(
      `without this PR ${count === 1 ? 'it' : 'they'} did not fail in ${plural(passing.length, 'run', 'runs')} ${and(passing)}`,
    );
  if (d.passedOnTarget)
    parts.push(`${plural(count, 'it', 'they')} passed on ${target} at ${d.passedOnTarget.slice(0, 12)}`);
  return parts.join('; ');
}

/**
 * "#5 conflicts with #4 (tested ahead of it on main) in file README.md": the PRs it clashed with when
 * known, else every PR it was applied on (the host could not tell which), else the target branch.
 */
function conflictClause(d: Extract<ReasonDetail, { kind: 'conflict' }>, targetBranch?: string): string {
  const target = targetBranch ? `the target branch ${targetBranch}` : 'the target branch';
  const ahead = d.clashesWith ?? d.onTopOf;
  const withWhat =
    ahead.length === 0
      ? target
      : `${list(ahead.map((n) => `#${n}`))} (tested ahead of it on ${targetBranch ?? 'the target branch'})`;
  const files = d.files.length > 0 ? ` in ${plural(d.files.length, 'file', 'files')} ${list(d.files)}` : '';
  return `#${d.pr} conflicts with ${withWhat}${files}`;
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
  return `${PR_STATE_LEADS[input.state]}: ${why}.`;
}

/** The prefix of a test branch `<prefix>pr-<n>/<run id>` (git/names.ts); the branch itself otherwise. */
export function testBranchPrefixOf(branch: string): string {
  return /^(.*?)pr-\d+\/[^/]+$/.exec(branch)?.[1] || branch;
}

/**
 * Stalled required checks as one sentence (the PR's record, its comment, the queue page, the webhook):
 * which checks, since when, and the likely cause with what to change.
 */
export function stalledChecksSentence(s: StalledChecks): string {
  const names = s.checks.map((c) => `\`${c}\``).join(', ');
  const which = s.checks.length === 1 ? `Required check ${names} has` : `Required checks ${names} have`;
  const prefix = testBranchPrefixOf(s.testBranch);
  const minutes = `${s.graceMinutes} minute${s.graceMinutes === 1 ? '' : 's'}`;
  const cause =
    s.cause === 'nothing_reported'
      ? `no check at all reported on it, so most likely no CI workflow is triggered on the test-branch prefix \`${prefix}\` (GitHub Actions: \`on: push: branches: ['${prefix}**']\`)`
      : 'CI reported other checks on it, so most likely the required check is not produced on branches (a job that runs only on pull requests, or a check named differently)';
  return `${which} not started ${minutes} after the test branch \`${s.testBranch}\` was pushed: ${cause}; the testing timeout still ends the run.`;
}

/** Bounds a list of names for a detail: at most MAX_DETAIL_NAMES, each at most MAX_DETAIL_TEXT long. */
export function boundedNames(names: readonly string[]): { names: string[]; more: number } {
  const kept = names.slice(0, MAX_DETAIL_NAMES).map((n) => n.slice(0, MAX_DETAIL_TEXT));
  return { names: kept, more: Math.max(0, names.length - kept.length) };
}
