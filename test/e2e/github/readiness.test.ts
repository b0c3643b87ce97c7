/**
 * Readiness from GitHub (issue 14): a PR GitHub would not merge yet waits in not_ready with a reason a
 * person understands, naming a required check that has not reported, and is admitted as soon as the
 * blocking condition clears (a webhook, no waiting for the periodic recheck).
 */
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

test('a PR whose own required check has not reported waits not_ready, says which check, then merges', async () => {
  // CI reports `test` on test branches only; the PR's own `lint` is required by protection.
  h = await newQueue({
    ci: (_sha, branch) => (branch.startsWith('trunk-merge/') ? 'success' : null),
  });
  hub().setProtection(h.repo.owner, h.repo.name, 'main', {
    requiredStatusChecks: ['lint'],
    restrictUpdates: true,
    bypassAppIds: [hub().app.id],
  });
  await h.createQueue({ mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'c.txt': 'c\n' }, 'add c');
  await h.submit(pr.number);
  const waiting = await h.waitFor('the PR to say what it waits for', async () => {
    const r = await h!.pr(pr.number);
    return r?.state === 'not_ready' && r.details?.readiness.blockedBy ? r : undefined;
  });
  expect(waiting.details?.readiness.blockedBy).toBe(
    'it waits for the required check `lint` on its head commit (`lint` has not reported at all)',
  );
  // The check arrives on the PR's head: its webhook alone admits the PR.
  hub().setCheckRun(h.repo.owner, h.repo.name, pr.headSha, {
    name: 'lint',
    status: 'completed',
    conclusion: 'success',
  });
  const merged = await h.settled(pr.number, 12_000);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.map((t) => t.to)).toEqual([
    'not_ready',
    'pending',
    'testing',
    'tests_passed',
    'merged',
  ]);
}, 120_000);

test('a draft PR waits not_ready as a draft and is admitted once it is marked ready', async () => {
  h = await newQueue();
  await h.createQueue({ mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'd.txt': 'd\n' }, 'add d', { draft: true });
  await h.submit(pr.number);
  const waiting = await h.waitFor('the draft to wait', async () => {
    const r = await h!.pr(pr.number);
    return r?.state === 'not_ready' && r.details?.readiness.blockedBy ? r : undefined;
  });
  expect(waiting.details?.readiness.blockedBy).toBe('it is a draft: mark it ready for review');
  // `ready_for_review` admits it; the not-ready recheck (every 15 s) is only the fallback.
  hub().setDraft(h.repo.owner, h.repo.name, pr.number, false);
  expect((await h.settled(pr.number, 12_000)).state).toBe('merged');
}, 120_000);

test('a PR missing an approval waits not_ready saying which review it needs, and is admitted when the review arrives', async () => {
  h = await newQueue();
  hub().setProtection(h.repo.owner, h.repo.name, 'main', {
    requiredApprovingReviewCount: 1,
    restrictUpdates: true,
    bypassAppIds: [hub().app.id],
  });
  await h.createQueue({ mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'e.txt': 'e\n' }, 'add e');
  await h.submit(pr.number);
  const blockedBy = async (sentence: string) =>
    h!.waitFor(`the PR to wait for: ${sentence}`, async () => {
      const r = await h!.pr(pr.number);
      return r?.state === 'not_ready' && r.details?.readiness.blockedBy === sentence ? r : undefined;
    });
  await blockedBy('it needs 1 approving review (it has none)');
  // A review asking for changes is named (its webhook re-reads the PR at once).
  hub().review(h.repo.owner, h.repo.name, pr.number, 'bob', 'CHANGES_REQUESTED');
  await blockedBy('@bob requested changes: it is admitted once they approve or the review is dismissed');
  // A comment-only review changes nothing; bob's approval admits it.
  hub().review(h.repo.owner, h.repo.name, pr.number, 'carol', 'COMMENTED');
  hub().review(h.repo.owner, h.repo.name, pr.number, 'bob', 'APPROVED');
  const merged = await h.settled(pr.number, 12_000);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.map((t) => t.to)).toEqual([
    'not_ready',
    'pending',
    'testing',
    'tests_passed',
    'merged',
  ]);
}, 120_000);
