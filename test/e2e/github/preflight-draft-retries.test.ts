/**
 * The preflight's draft PR when GitHub cannot open it now (fakehub, issue 28): a 5xx or no answer is
 * tried again with a doubling pause within a time bound (activities/preflight.ts, `draftRetry`), so a
 * GitHub that recovers gives the ordinary answer, and one that does not gives a plain answer naming its
 * last status within the bound, with no branch or draft PR left. The GitHub clients here do not retry
 * 5xx themselves (`retries: 0`), so every failure fakehub answers reaches the preflight; the bound is
 * 20 s (60 s in a worker). How the bound and the pauses are kept is unit-tested on a fake clock
 * (test/unit/activities/preflight-draft-retry.test.ts); here attempts take real, loaded time.
 */
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';
import { pullsOf } from '../../support/draft-pr-ci';

const BUDGET_MS = 20_000;
const { hub, newQueue } = useGitHubQueueHarness({
  clientOptions: { retries: 0 },
  preflightDraftRetry: { budgetMs: BUDGET_MS, firstDelayMs: 500 },
});

const DRAFT_MODE = { requiredStatuses: ['test'], createPrsForTestingBranches: true };

/** Starts the preflight of the queue of main and waits for its answer. */
async function preflight(h: GitHubQueueHarness): Promise<Record<string, unknown>> {
  const queue = { repo: h.repo, targetBranch: 'main' };
  expect((await h.api('queues/preflight', { ...queue, waitSeconds: 60 })).status).toBe(202);
  return h.waitFor('the preflight answer', async () => {
    const r = await h.api('queues/preflight/result', queue);
    const view = r.body as { state: string; result: Record<string, unknown> | null };
    return (view.state === 'done' && view.result) || undefined;
  });
}

/** The draft PR creations GitHub was asked for, by the status each got (0: no answer). */
const creates = (h: GitHubQueueHarness) =>
  hub()
    .requests.filter(
      (r) => r.operationId === 'pulls/create' && r.path === `/repos/${h.repo.owner}/${h.repo.name}/pulls`,
    )
    .map((r) => r.status);

async function nothingLeft(h: GitHubQueueHarness): Promise<void> {
  await h.waitFor('no preflight branch left', () => Promise.resolve(h.branches('trunk-merge/').length === 0));
  expect(pullsOf(hub(), h).filter((p) => p.state === 'open')).toEqual([]);
}

test('GitHub failing to open the draft PR twice, then opening it: the preflight answers as ever', async () => {
  const h = await newQueue();
  await h.createQueue({ concurrency: 1 }, DRAFT_MODE);
  hub().knobs.failOperation('pulls/create', 2, { status: 503 });
  const answer = await preflight(h);
  expect(answer).toMatchObject({ kind: 'started', required: ['test'], started: ['test'] });
  expect(answer.draftPullRequest).toMatchObject({ number: expect.any(Number) });
  expect(creates(h)).toEqual([503, 503, 201]);
  await nothingLeft(h);
}, 90_000);

test.each([
  { what: '503', failure: { status: 503 as const }, last: /the last with 503 \(Service Unavailable\)/ },
  {
    what: 'no answer',
    failure: 'network' as const,
    last: /the last with no answer \(GitHub could not be reached/,
  },
])(
  'GitHub failing every draft PR ($what): a plain answer naming its last status within the bound, nothing left',
  async ({ failure, last }) => {
    const h = await newQueue();
    await h.createQueue({ concurrency: 1 }, DRAFT_MODE);
    hub().knobs.failOperation('pulls/create', Infinity, failure);
    const answer = await preflight(h);
    expect(answer).toEqual({ kind: 'problem', sentence: expect.any(String) });
    const sentence = answer.sentence as string;
    expect(sentence).toMatch(
      /^The host did not open the preflight's draft pull request into main of github\.com\/[^ ]+: \d+ attempts over \d+ s failed, the last with .*\. Its test branch was deleted again\. The host is having trouble, not your settings: run the preflight again later\.$/,
    );
    expect(sentence).toMatch(last);
    // Every attempt is one creation GitHub failed: tried again, and answered (not five failed attempts
    // of the activity and "ended without an answer", as before).
    const [, attempts] = /: (\d+) attempts over \d+ s/.exec(sentence)!;
    expect(creates(h)).toEqual(Array(Number(attempts)).fill(failure === 'network' ? 0 : 503));
    expect(Number(attempts)).toBeGreaterThan(1);
    hub().knobs.failOperation('pulls/create', 0);
    await nothingLeft(h);
  },
  90_000,
);
