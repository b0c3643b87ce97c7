/**
 * Tenant safety of presentPullRequest: a PR of a repository the queue's organisation does not own is
 * never shown (nothing is written to it), whatever the presenter could reach; an owned one is.
 */
import { createPresentationActivities } from '../../../activities/presentation';
import type { PullRequestPresenter } from '../../../github/presentation/pr-presenter';
import type { PresentPullRequestInput, RepositoryKey } from '../../../contract';

const repo: RepositoryKey = { host: 'github.com', owner: 'acme', name: 'app' };
const input = {
  key: { organisationId: 'org-b', repo, targetBranch: 'main' },
  record: {} as PresentPullRequestInput['record'],
  seq: 3,
  presentation: { comment: true, checkRun: true, position: 1, queueLength: 1 },
  ids: { commentId: null, checkRunId: null, announcedSeq: 0 },
} satisfies PresentPullRequestInput;

function presenterRecordingCalls() {
  const calls: PresentPullRequestInput[] = [];
  const presenter: PullRequestPresenter = {
    present: (i) => {
      calls.push(i);
      return Promise.resolve({ commentId: 7, checkRunId: 8, announcedSeq: 0 });
    },
  };
  return { calls, presenter };
}

test("another organisation's repository: nothing is presented and the ids stay as they were", async () => {
  const { calls, presenter } = presenterRecordingCalls();
  const owners: [string, RepositoryKey][] = [];
  const activities = createPresentationActivities({
    presenter,
    owns: (org, r) => {
      owners.push([org, r]);
      return Promise.resolve(org === 'org-a');
    },
  });
  expect(await activities.presentPullRequest(input)).toEqual(input.ids);
  expect(calls).toEqual([]);
  expect(owners).toEqual([['org-b', repo]]);
});

test('an owned repository is presented', async () => {
  const { calls, presenter } = presenterRecordingCalls();
  const activities = createPresentationActivities({ presenter, owns: () => Promise.resolve(true) });
  expect(await activities.presentPullRequest(input)).toEqual({
    commentId: 7,
    checkRunId: 8,
    announcedSeq: 0,
  });
  expect(calls).toHaveLength(1);
});
