/**
 * The PR on GitHub (issue 14): one live comment edited in place, an announcement that mentions the
 * author when the PR leaves the queue unmerged, and a "railyard merge queue" check run on its head.
 */
import { prWorkflowId } from '../../../contract';
import { useGitHubQueueHarness, type GitHubQueueHarness } from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

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
  h = await newQueue();
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

/** The live comment's headlines in the order GitHub announced them (created, then every edit). */
function liveHeadlines(n: number): string[] {
  return hub()
    .webhooks.deliveries.filter((d) => d.event === 'issue_comment' && d.action !== 'deleted')
    .map((d) => d.payload as { issue: { number: number }; comment: { body: string } })
    .filter((p) => p.issue.number === n && p.comment.body.includes(LIVE))
    .map((p) => /\*\*([^*\n]+)\*\*\n\n/.exec(p.comment.body.split(LIVE)[1]!)?.[1] ?? '?');
}

/** The titles the PR's check run was written with, in order, and how it ended. */
function checkRunStory(n: number): string[] {
  const head = hub().pullRequest(h!.repo.owner, h!.repo.name, n).headSha;
  const ids = new Set(
    hub()
      .state.checkRuns.filter((r) => r.headSha === head && r.name === 'railyard merge queue')
      .map((r) => r.id),
  );
  return hub()
    .state.checkRunWrites.filter((w) => ids.has(w.runId))
    .map((w) => `${w.status}${w.conclusion ? `/${w.conclusion}` : ''}: ${w.title ?? ''}`);
}

const dedupe = (items: string[]) => items.filter((item, i) => item !== items[i - 1]);

test('a write collaborator comments /trunk merge: the live comment and the check run go queued → testing → merged', async () => {
  // CI reports on test branches only when the test says so, so each state lasts long enough to show.
  h = await newQueue({
    ci: (_sha, branch) => (branch.startsWith('trunk-merge/') ? null : 'success'),
  });
  await h.createQueue(
    { concurrency: 1, mergeMethod: 'merge_commit' },
    { requiredStatuses: ['test'], commandsEnabled: true, ...SHOWN },
  );
  hub().setPermission(h.repo.owner, h.repo.name, 'alice', 'write');
  const first = await h.openPr({ 'f1.txt': '1\n' }, 'first');
  const second = await h.openPr({ 'f2.txt': '2\n' }, 'second');
  hub().comment(h.repo.owner, h.repo.name, first.number, { author: 'alice', body: '/trunk merge' });
  await h.waitFor('the first PR testing', async () => (await h!.pr(first.number))?.state === 'testing');
  hub().comment(h.repo.owner, h.repo.name, second.number, { author: 'alice', body: '/trunk merge' });
  // The second waits behind the first (concurrency 1): its comment says where it stands.
  await h.waitFor('the second PR queued on GitHub', () =>
    Promise.resolve(liveHeadlines(second.number).at(-1)?.startsWith('⏳ Queued: position 2 of 2')),
  );
  const passTestBranch = async (n: number) => {
    const record = await h!.waitFor(`PR #${n}'s test commit`, async () => {
      const r = await h!.pr(n);
      return r?.state === 'testing' && r.testedOn?.sha ? r : undefined;
    });
    await h!.waitFor(`PR #${n}'s comment saying it is testing`, () =>
      Promise.resolve(
        liveHeadlines(n).at(-1) === '🧪 Testing' &&
          shown(n).live[0]?.includes(`\`${record.testedOn!.branch}\` at ${record.testedOn!.sha}`),
      ),
    );
    hub().setCheckRun(h!.repo.owner, h!.repo.name, record.testedOn!.sha!, {
      name: 'test',
      conclusion: 'success',
    });
  };
  await passTestBranch(first.number);
  expect((await h.settled(first.number)).state).toBe('merged');
  await passTestBranch(second.number);
  const merged = await h.settled(second.number);
  expect(merged.state).toBe('merged');
  expect(merged.mergedAs).toBe(h.mainTip());
  await h.waitFor('the merged state on the second PR', () =>
    Promise.resolve(
      liveHeadlines(second.number).at(-1)?.startsWith('🎉 Merged') &&
        checkRunStory(second.number).at(-1)?.startsWith('completed'),
    ),
  );
  // "Tests passed" is shown only when the merge takes longer than the presenter's next write (as on a
  // loaded machine): allowed, in its place between testing and merged, not required.
  const story = dedupe(liveHeadlines(second.number));
  expect(story).toEqual([
    '⏳ Queued: position 2 of 2',
    '🧪 Testing',
    ...(story.includes('✅ Tests passed') ? ['✅ Tests passed'] : []),
    '🎉 Merged into `main`',
  ]);
  expect(shown(second.number).live[0]).toContain(`\`main\` is now at ${h.mainTip()}`);
  const checkRun = dedupe(checkRunStory(second.number));
  expect(checkRun).toEqual([
    'in_progress: Queued: position 2 of 2',
    'in_progress: Testing',
    ...(checkRun.includes('in_progress: Tests passed') ? ['in_progress: Tests passed'] : []),
    'completed/success: Merged into `main`',
  ]);
}, 120_000);

test('a failed PR says why in its live comment, mentions its author once, and fails its check run', async () => {
  h = await newQueue();
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
  h = await newQueue();
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
