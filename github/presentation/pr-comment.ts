/**
 * What a person reads on a GitHub PR about its place in the merge queue (docs/github.md, "The PR on
 * GitHub"): the live comment's text, the failure announcement, and the check run's title and
 * conclusion, for each state of the PR's record. Pure: the same record gives the same text.
 *
 * Rules: one headline per state, then what happens next or what to do; reasons are sentences
 * (contract/pr-reasons.ts, from the words of contract/words.ts), and Trunk's reason name, for those who
 * search by it, only in a collapsed "Reason code" block at the end, as the dashboard keeps codes in
 * tooltips; the live comment carries LIVE_MARKER and each
 * announcement ANNOUNCE_MARKER + its submission and transition, so a retried activity finds what it
 * already wrote instead of writing it twice.
 *
 * Everything railyard did not write (the branch, test, status and file names, an API key's name, a
 * runner's or host's words, the test run id, the PR author's login) goes through markdown.ts: inert
 * prose, or a code span, so no PR author or tenant can make the App mention, link or format anything.
 * `blockedBy` is railyard's own sentence (github/host/readiness.ts), whose check names are code spans
 * made there.
 */
import {
  detailedClause,
  prStateWord,
  testBranchPrefixOf,
  type Presentation,
  type PullRequestRecord,
  type ReasonDetail,
} from '../../contract';
import { code, inert, mention, sha } from './markdown';

export const LIVE_MARKER = '<!-- railyard:live-comment -->';
export const announceMarker = (submissionId: string, seq: number) =>
  `<!-- railyard:announce ${submissionId}/${seq} -->`;
export const CHECK_RUN_NAME = 'railyard merge queue';

/**
 * A reason as the comment shows it: the sentence of contract/pr-reasons.ts (one module for
 * the API, the webhooks and this comment), made concrete by the transition's detail when it has one.
 */
export const reasonText = (reason: string, detail?: ReasonDetail, branch?: string): string =>
  `${detailedClause(reason, detail && inertDetail(detail), branch && inert(branch)).replace(/\.$/, '')}.`;

/** Trunk's reason name, collapsed: there for a search, out of the way of the sentence. */
const reasonCode = (reason: string): string =>
  `\n<details><summary>Reason code</summary>\n\n${code(reason, 60)}\n\n</details>\n`;

/** The states whose comment says why with a reason sentence (and so carries its code). */
const explained = (record: PullRequestRecord): boolean =>
  record.state === 'failed' ||
  record.state === 'cancelled' ||
  (record.state === 'not_ready' && !record.details?.readiness.blockedBy);

/** A detail whose every outside string is inert (PR numbers stay: they are this repository's PRs). */
function inertDetail(detail: ReasonDetail): ReasonDetail {
  const all = (names: readonly string[]) => names.map((n) => inert(n, 120));
  switch (detail.kind) {
    case 'command_failed':
      return { ...detail, failedTests: all(detail.failedTests) };
    case 'statuses':
      return { ...detail, failed: all(detail.failed), missing: all(detail.missing) };
    case 'conflict':
      return { ...detail, files: all(detail.files) };
    case 'actor':
      return { ...detail, actor: inert(detail.actor, 120) };
    case 'problem':
      return { ...detail, text: inert(detail.text, 500) };
    case 'landing':
      return detail; // commit and tree ids only
    case 'test_evidence':
      return {
        ...detail,
        tests: all(detail.tests),
        runs: detail.runs.map((r) => ({ ...r, testRunId: inert(r.testRunId, 40) })),
      };
  }
}

const latestDetail = (record: PullRequestRecord) => record.timeline.at(-1)?.detail;

export interface PresentedState {
  headline: string;
  /** What follows the headline in the comment and the check run's summary. */
  detail: string;
  checkRun: { status: 'in_progress' | 'completed'; conclusion?: 'success' | 'failure' | 'cancelled' };
  /** Failures and cancellations are announced in a comment of their own (edits notify nobody). */
  announce: boolean;
}

export function presentedState(
  record: PullRequestRecord,
  presentation: Presentation,
  branch: string,
): PresentedState {
  const inProgress = { status: 'in_progress' } as const;
  switch (record.state) {
    case 'not_ready':
      return {
        headline: '⏸️ Submitted, not ready yet',
        detail: `It enters the queue as soon as it is ready; now ${
          record.details?.readiness.blockedBy
            ? `${record.details.readiness.blockedBy}.`
            : reasonText(record.reason)
        }`,
        checkRun: inProgress,
        announce: false,
      };
    case 'pending':
      return {
        headline: `⏳ Queued${presentation.position ? `: position ${presentation.position} of ${presentation.queueLength}` : ''}`,
        detail: `It will be tested on top of ${code(branch)} and the PRs ahead of it.`,
        checkRun: inProgress,
        announce: false,
      };
    case 'testing':
      return {
        headline: '🧪 Testing',
        detail: `CI is checking ${testedOnText(record)}${runOf(record)}.${stalledText(record)}`,
        checkRun: inProgress,
        announce: false,
      };
    case 'tests_passed':
      return {
        headline: '✅ Tests passed',
        detail: `It merges into ${code(branch)} once the PRs ahead of it have merged.`,
        checkRun: inProgress,
        announce: false,
      };
    case 'pending_failure':
      return {
        headline: '⚠️ Its test run failed',
        detail: 'The queue waits for the PRs ahead of it before deciding which PR broke the run.',
        checkRun: inProgress,
        announce: false,
      };
    case 'merged':
      return {
        headline: `🎉 Merged into ${code(branch)}`,
        detail:
          record.reason === 'MANUAL_MERGE'
            ? 'Merged outside the queue.'
            : `Merged by the merge queue, as tested${record.mergedAs ? `: ${code(branch)} is now at ${sha(record.mergedAs)}` : ''}.`,
        checkRun: { status: 'completed', conclusion: 'success' },
        announce: false,
      };
    case 'failed':
      return {
        headline: '❌ Failed',
        detail: `It left the queue because ${reasonText(record.reason, latestDetail(record), branch)} Fix it and comment \`/trunk merge\` (or submit it again) to retry.`,
        checkRun: { status: 'completed', conclusion: 'failure' },
        announce: true,
      };
    case 'cancelled':
      return {
        headline: '🚫 Cancelled',
        detail: `It left the queue because ${reasonText(record.reason, latestDetail(record), branch)} Submit it again to re-queue it.`,
        checkRun: { status: 'completed', conclusion: 'cancelled' },
        announce: true,
      };
  }
}

function runOf(record: PullRequestRecord): string {
  const last = record.timeline.at(-1);
  return last?.testRunId ? ` (test run ${code(last.testRunId, 80)})` : '';
}

/** Its run's required checks that have not started (stall-watch.ts), names inert; '' when none. */
function stalledText(record: PullRequestRecord): string {
  const s = record.stalledChecks;
  if (!s) return '';
  const names = s.checks.map((c) => code(c, 100)).join(', ');
  const which = s.checks.length === 1 ? `required check ${names} has` : `required checks ${names} have`;
  const prefix = testBranchPrefixOf(s.testBranch);
  const cause =
    s.cause === 'nothing_reported'
      ? `no check at all reported on the test branch: most likely no CI workflow is triggered on the test-branch prefix ${code(prefix)}`
      : 'CI reported other checks on the test branch: most likely the required check is not produced on branches (it runs only on pull requests, or is named differently)';
  return `\n\n⚠️ **Stalled:** the ${which} not started ${s.graceMinutes} min after the test branch was pushed; ${cause}. The testing timeout still ends the run.`;
}

/**
 * The test branch and its commit. A full sha stays outside backticks so GitHub links it to the commit,
 * whose page shows the checks CI reports on it.
 */
function testedOnText(record: PullRequestRecord): string {
  const on = record.testedOn;
  if (!on) return "this PR's test branch";
  return `its test branch ${code(on.branch)}${on.sha ? ` at ${sha(on.sha)}` : ''}`;
}

/** The live comment's body. */
export function liveComment(record: PullRequestRecord, presentation: Presentation, branch: string): string {
  const s = presentedState(record, presentation, branch);
  const why = explained(record) ? reasonCode(record.reason) : '';
  return `${LIVE_MARKER}\n**railyard merge queue** · ${code(branch)}\n\n**${s.headline}**\n\n${s.detail}\n${why}`;
}

/** The comment that tells the author the PR left the queue (an edit would notify nobody). */
export function announcement(
  record: PullRequestRecord,
  presentation: Presentation,
  branch: string,
  seq: number,
): string {
  const s = presentedState(record, presentation, branch);
  const author = record.details?.author ? mention(record.details.author) : null;
  const who = author ? `${author} ` : '';
  const why = explained(record) ? reasonCode(record.reason) : '';
  return `${announceMarker(record.id, seq)}\n${who}this PR left the merge queue for ${code(branch)} (${prStateWord(record.state)}). ${s.detail}\n${why}`;
}
