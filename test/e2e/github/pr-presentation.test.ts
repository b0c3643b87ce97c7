/**
 * The PR on GitHub (issue 14): one live comment edited in place, an announcement that mentions the
 * author when the PR leaves the queue unmerged, and a "railyard merge queue" check run on its head.
 */
import { useFakeHub } from '../../support/fakehub';
import { prWorkflowId } from '../../../workflows/contract';
import { startGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const hub = useFakeHub();
let h: GitHubQueueHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LIVE = '<!-- railyard:live-comment -->';
/** Off by default (getQueue shows false); a queue turns them on with updateQueue. */
const SHOWN = { commentsEnabled: true, statusCheckEnabled: true };

function shown(n: number) {
  const comments = hub().comments(h!.repo.owner, h!.repo.name, n);
  const head = hub().pullRequest(h!.repo.owner, h!.repo.name, n).headSha;
  const runs = hub()
    .state.checkRuns.filter((r) => r.headSha === head && r.name === 'railyard merge queue')
    .map((r) => ({ status: r.status, conclusion: r.conclusion, title: r.byApp?.title ?? null }));
  return {
    live: comments.filter((c) => c.body.includes(LIVE)).map((c) => c.body),
    others: comments.filter((c) => !c.body.includes(LIVE)).map((c) => c.body),
    runs,
  };
}

test('a merged PR shows one live comment that ends "Merged" and a successful check run', async () => {
  h = await startGitHubQueueHarness(hub());
  await h.createQueue({ mergeMethod: 'merge_commit' }, { requiredStatuses: ['test'], ...SHOWN });
  const pr = await h.openPr({ 'a.txt': 'a\n' }, 'add a');
  await h.submit(pr.number);
  expect((await h.settled(pr.number)).state).toBe('merged');
  const final = await h.waitFor('the merged state on the PR', () => {
    const s = shown(pr.number);
    return Promise.resolve(
      s.runs[0]?.status === 'completed' && s.live[0]?.includes('Merged') ? s : undefined,
    );
  });
  // Edited in place: one live comment, no announcement for a merge.
  expect(final.live).toHaveLength(1);
  expect(final.live[0]).toMatch(/Merged into `main`/);
  expect(final.others).toEqual([]);
  expect(final.runs).toEqual([{ status: 'completed', conclusion: 'success', title: 'Merged into `main`' }]);
}, 120_000);

test('a failed PR says why in its live comment, mentions its author once, and fails its check run', async () => {
  h = await startGitHubQueueHarness(hub());
  await h.createQueue({ mergeMethod: 'squash' }, { requiredStatuses: ['test'], ...SHOWN });
  const pr = await h.openPr({ BROKEN: 'yes\n' }, 'break things');
  await h.submit(pr.number);
  const record = await h.settled(pr.number);
  expect(record.state).toBe('failed');
  const final = await h.waitFor('the failed state on the PR', () => {
    const s = shown(pr.number);
    return Promise.resolve(s.runs[0]?.status === 'completed' && s.others.length > 0 ? s : undefined);
  });
  expect(final.live).toHaveLength(1);
  expect(final.live[0]).toContain('Failed');
  expect(final.live[0]).toContain(`\`${record.reason}\``);
  expect(final.others).toHaveLength(1);
  expect(final.others[0]).toMatch(
    /^<!-- railyard:announce [^ ]+\/\d+ -->\n@octocat this PR left the merge queue/,
  );
  expect(final.runs).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'failure' })]);
}, 120_000);

test('with commentsEnabled and statusCheckEnabled off the PR shows nothing of the queue', async () => {
  h = await startGitHubQueueHarness(hub());
  await h.createQueue(
    { mergeMethod: 'merge_commit' },
    { requiredStatuses: ['test'], commentsEnabled: false, statusCheckEnabled: false },
  );
  const pr = await h.openPr({ 'b.txt': 'b\n' }, 'add b');
  await h.submit(pr.number);
  expect((await h.settled(pr.number)).state).toBe('merged');
  // The PR's workflow ends only after presenting what it was asked to: here, nothing.
  await h.client.workflow.getHandle(prWorkflowId(h.key, pr.number)).result();
  expect(shown(pr.number)).toEqual({ live: [], others: [], runs: [] });
}, 120_000);
