/**
 * What a person reads on a GitHub PR about its place in the merge queue (docs/github.md, "The PR on
 * GitHub"): the live comment's text, the failure announcement, and the check run's title and
 * conclusion, for each state of the PR's record. Pure: the same record gives the same text.
 *
 * Rules: one headline per state, then what happens next or what to do; reasons are sentences, with
 * Trunk's reason name in backticks for searching; the live comment carries LIVE_MARKER and each
 * announcement ANNOUNCE_MARKER + its submission and transition, so a retried activity finds what it
 * already wrote instead of writing it twice.
 */
import type { Presentation, PullRequestRecord } from '../../workflows/contract';

export const LIVE_MARKER = '<!-- railyard:live-comment -->';
export const announceMarker = (submissionId: string, seq: number) =>
  `<!-- railyard:announce ${submissionId}/${seq} -->`;
export const CHECK_RUN_NAME = 'railyard merge queue';

/** Sentences for the reasons a person may need to act on; others show their name only. */
const REASONS: Record<string, string> = {
  AWAITING_MERGEABILITY:
    'GitHub does not allow this PR to merge yet: it needs its reviews, its own required checks, or to be marked ready for review.',
  BASE_BRANCH_MISMATCH: "this PR's base branch is not the queue's branch.",
  IMPACTED_TARGETS_MISSING:
    "the queue runs in parallel mode and waits for this PR's impacted targets to be uploaded.",
  PR_HEAD_CHANGED: 'a new commit was pushed; the new head is checked again.',
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required check failed on the test branch.',
  TEST_RUN_TIMEOUT: 'a required check did not report before the testing timeout.',
  START_TEST_RUN_MERGE_CONFLICT: 'it conflicts with the target branch or a PR ahead of it.',
  MERGE_CONFLICT_AT_MERGE_TIME: 'it conflicted with the target branch when it was merged.',
  START_TEST_RUN_NO_REQUIRED_STATUSES:
    'no required checks are configured: set requiredStatuses, .trunk/trunk.yaml merge.required_statuses, or required status checks on the branch.',
  START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES: '.trunk/trunk.yaml has an invalid merge.required_statuses.',
  GITHUB_API_MERGE_PR_FAILED: 'GitHub refused the merge (branch protection or repository settings).',
  PR_PUSHED_TO: 'a new commit was pushed to it while it was queued.',
  PR_UPDATED_AT_MERGE_TIME: 'a new commit was pushed to it while it was being merged.',
  PR_CLOSED: 'it was closed.',
  USER_REQUESTED: 'someone asked for it.',
  API_REQUESTED: 'a client of the API asked for it.',
  MANUAL_MERGE: 'it was merged outside the queue.',
};

export const reasonText = (reason: string): string => {
  const sentence = REASONS[reason];
  return sentence ? `${sentence.replace(/\.$/, '')} (\`${reason}\`).` : `\`${reason}\`.`;
};

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
        detail: `It will be tested on top of \`${branch}\` and the PRs ahead of it.`,
        checkRun: inProgress,
        announce: false,
      };
    case 'testing':
      return {
        headline: '🧪 Testing',
        detail: `CI is checking ${testedOnText(record)}${runOf(record)}.`,
        checkRun: inProgress,
        announce: false,
      };
    case 'tests_passed':
      return {
        headline: '✅ Tests passed',
        detail: `It merges into \`${branch}\` once the PRs ahead of it have merged.`,
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
        headline: `🎉 Merged into \`${branch}\``,
        detail:
          record.reason === 'MANUAL_MERGE'
            ? 'Merged outside the queue.'
            : `Merged by the merge queue, as tested${record.mergedAs ? `: \`${branch}\` is now at ${record.mergedAs}` : ''}.`,
        checkRun: { status: 'completed', conclusion: 'success' },
        announce: false,
      };
    case 'failed':
      return {
        headline: '❌ Failed',
        detail: `It left the queue because ${reasonText(record.reason)} Fix it and comment \`/trunk merge\` (or submit it again) to retry.`,
        checkRun: { status: 'completed', conclusion: 'failure' },
        announce: true,
      };
    case 'cancelled':
      return {
        headline: '🚫 Cancelled',
        detail: `It left the queue because ${reasonText(record.reason)} Submit it again to re-queue it.`,
        checkRun: { status: 'completed', conclusion: 'cancelled' },
        announce: true,
      };
  }
}

function runOf(record: PullRequestRecord): string {
  const last = record.timeline.at(-1);
  return last?.testRunId ? ` (test run \`${last.testRunId}\`)` : '';
}

/**
 * The test branch and its commit. A full sha stays outside backticks so GitHub links it to the commit,
 * whose page shows the checks CI reports on it.
 */
function testedOnText(record: PullRequestRecord): string {
  const on = record.testedOn;
  if (!on) return "this PR's test branch";
  return `its test branch \`${on.branch}\`${on.sha ? ` at ${on.sha}` : ''}`;
}

/** The live comment's body. */
export function liveComment(record: PullRequestRecord, presentation: Presentation, branch: string): string {
  const s = presentedState(record, presentation, branch);
  return `${LIVE_MARKER}\n**railyard merge queue** · \`${branch}\`\n\n**${s.headline}**\n\n${s.detail}\n`;
}

/** The comment that tells the author the PR left the queue (an edit would notify nobody). */
export function announcement(
  record: PullRequestRecord,
  presentation: Presentation,
  branch: string,
  seq: number,
): string {
  const s = presentedState(record, presentation, branch);
  const who = record.details?.author ? `@${record.details.author} ` : '';
  return `${announceMarker(record.id, seq)}\n${who}this PR left the merge queue for \`${branch}\` (${record.state}). ${s.detail}\n`;
}
