/**
 * `pull_request.checks_stalled` (railyard's, additive; docs/webhooks.md): a testing PR's required
 * checks have not started within the queue's grace after its test branch was pushed
 * (workflows/queue/stall-watch.ts). A pure function from the PR's details refresh that reported it.
 *
 * Rules: the payload has the shape of Trunk's PR events (type, action, status `testing`, author,
 * http_details_url, pr_number, repository, target_branch, timestamp = when the grace ended, test
 * branch) plus the stalled checks, the likely cause and the sentence. Key:
 * `stall/<submission>/<test branch>/<checks>`, so a retried refresh is one delivery and another set of
 * stalled checks (or another run) is another.
 */
import { stalledChecksSentence, type PrDetailsRefresh, type PullRequestWorkflowInput } from '../contract';
import type { OutgoingEvent } from './event-types';

export interface StalledChecksEventInput {
  workflow: PullRequestWorkflowInput;
  refresh: PrDetailsRefresh;
  /** `http_details_url`: the PR's page (Trunk's shape under the public URL). */
  detailsUrl: string;
}

export function stalledChecksEvent(input: StalledChecksEventInput): OutgoingEvent | null {
  const { workflow, refresh } = input;
  const s = refresh.stalledChecks;
  if (!s) return null;
  const type = 'pull_request.checks_stalled' as const;
  const { repo, targetBranch, organisationId } = workflow.key;
  return {
    organisationId,
    key: `stall/${workflow.submissionId}/${s.testBranch}/${s.checks.join('\n')}`,
    type,
    payload: {
      type,
      action: 'checks_stalled',
      status: 'testing',
      author: refresh.details.author,
      http_details_url: input.detailsUrl,
      pr_number: workflow.prNumber,
      pr_sha: refresh.details.headSha,
      repository: { host: repo.host, owner: repo.owner, name: repo.name },
      target_branch: targetBranch,
      timestamp: new Date(s.since).toISOString(),
      test_branch: s.testBranch,
      test_branch_sha: refresh.testedOn?.sha ?? null,
      stalled_checks: [...s.checks],
      cause: s.cause,
      grace_minutes: s.graceMinutes,
      reason_text: stalledChecksSentence(s),
    },
  };
}
