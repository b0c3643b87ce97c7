/** `pull_request.checks_stalled` (webhooks/stalled-check-events.ts): its payload and its key. */
import { WEBHOOK_EVENT_TYPES } from '../../../webhooks/event-types';
import { stalledChecksEvent } from '../../../webhooks/stalled-check-events';
import type { PrDetailsRefresh } from '../../../contract';
import { prDetails } from '../../support/pr-details';

const details = prDetails();
const workflow = {
  key: {
    organisationId: 'org-1',
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    targetBranch: 'main',
  },
  prNumber: 7,
  submissionId: 'sub-1',
  submittedAt: 0,
};
const refresh = (stalledChecks: PrDetailsRefresh['stalledChecks']): PrDetailsRefresh => ({
  submissionId: 'sub-1',
  afterSeq: 3,
  details,
  ...(stalledChecks !== undefined ? { stalledChecks } : {}),
});
const STALL = {
  checks: ['test', 'e2e'],
  cause: 'not_produced' as const,
  since: Date.parse('2026-11-27T12:05:00Z'),
  testBranch: 'trunk-merge/pr-7/run-1',
  graceMinutes: 5,
};

test('a refresh reporting stalled checks is one event naming them, the cause and the sentence', () => {
  const event = stalledChecksEvent({ workflow, refresh: refresh(STALL), detailsUrl: 'https://r/merge/x/7' });
  expect(WEBHOOK_EVENT_TYPES).toContain('pull_request.checks_stalled');
  expect(event).toEqual({
    organisationId: 'org-1',
    key: 'stall/sub-1/trunk-merge/pr-7/run-1/test\ne2e',
    type: 'pull_request.checks_stalled',
    payload: expect.objectContaining({
      type: 'pull_request.checks_stalled',
      action: 'checks_stalled',
      status: 'testing',
      author: 'ada',
      http_details_url: 'https://r/merge/x/7',
      pr_number: 7,
      repository: { host: 'github.com', owner: 'acme', name: 'app' },
      target_branch: 'main',
      timestamp: '2026-11-27T12:05:00.000Z',
      test_branch: 'trunk-merge/pr-7/run-1',
      stalled_checks: ['test', 'e2e'],
      cause: 'not_produced',
      grace_minutes: 5,
      reason_text: expect.stringContaining('Required checks `test`, `e2e` have not started 5 minutes after'),
    }),
  });
  // The same report again (a retried effect) has the same key: one delivery.
  expect(stalledChecksEvent({ workflow, refresh: refresh(STALL), detailsUrl: '' })!.key).toBe(event!.key);
});

test('a refresh without a stall, or one that clears it, sends nothing', () => {
  expect(stalledChecksEvent({ workflow, refresh: refresh(undefined), detailsUrl: '' })).toBeNull();
  expect(stalledChecksEvent({ workflow, refresh: refresh(null), detailsUrl: '' })).toBeNull();
});
