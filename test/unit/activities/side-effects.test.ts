/**
 * performSideEffects (activities/side-effects): the order it keeps, that one failure loses none of the
 * other effects, and that a retried call skips what an earlier attempt reported done.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  createSideEffectActivities,
  type SideEffect,
  type SideEffectDeps,
  type SideEffectsResult,
} from '../../../activities/side-effects';
import type { PrTransitionNotice, PullRequestWorkflowInput, QueueKey } from '../../../contract';

const key: QueueKey = {
  organisationId: 'org',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  targetBranch: 'main',
};
const workflow = (pr: number): PullRequestWorkflowInput => ({
  key,
  prNumber: pr,
  submissionId: `s${pr}`,
  submittedAt: 0,
});
const notice = (pr: number, seq: number) => ({ submissionId: `s${pr}`, seq }) as PrTransitionNotice;

const append: SideEffect = { kind: 'appendTransitions', key: 'append', events: [], queue: key };
const notify = (pr: number, seq: number): SideEffect => ({
  kind: 'notifyPullRequest',
  key: `notify:${pr}:${seq}`,
  workflow: workflow(pr),
  notices: [notice(pr, seq)],
});
const refresh = (pr: number, afterSeq: number): SideEffect => ({
  kind: 'refreshPullRequestDetails',
  key: `refresh:${pr}:${afterSeq}`,
  workflow: workflow(pr),
  refresh: { submissionId: `s${pr}`, afterSeq, details: {} as never },
});
const remove = (branch: string): SideEffect => ({
  kind: 'deleteTestBranch',
  key: `delete:${branch}`,
  repo: key.repo,
  branchName: branch,
});

/** Deps that log each call in order, failing the keys in `failing` (a function may say how). */
function recording(failing: Record<string, () => Error> = {}) {
  const calls: string[] = [];
  const run = async (name: string) => {
    await Promise.resolve();
    const fail = failing[name];
    if (fail) throw fail();
    calls.push(name);
  };
  const deps: SideEffectDeps = {
    appendTransitions: async () => {
      await run('append');
      return { appended: 0, deliveries: 0 };
    },
    notifyPullRequest: ({ workflow: w, notices }) => run(`notify:${w.prNumber}:${notices[0]!.seq}`),
    refreshPullRequestDetails: ({ workflow: w, refresh: r }) => run(`refresh:${w.prNumber}:${r.afterSeq}`),
    deleteTestBranch: ({ branchName }) => run(`delete:${branchName}`),
  };
  return { calls, deps };
}

test('the append goes first; each submission keeps its order', async () => {
  const { calls, deps } = recording();
  const { performSideEffects } = createSideEffectActivities(deps);
  const effects = [notify(1, 1), remove('b'), refresh(1, 1), notify(2, 1), notify(1, 2), append];
  const result = await performSideEffects({ effects });
  expect(calls[0]).toBe('append');
  const ofPr1 = calls.filter((c) => c.includes(':1:'));
  expect(ofPr1).toEqual(['notify:1:1', 'refresh:1:1', 'notify:1:2']);
  expect(new Set(result.done)).toEqual(new Set(effects.map((e) => e.key)));
  expect(result.failed).toEqual([]);
});

test('a failed append or deletion loses none of the others; a submission stops at its failed notice', async () => {
  const { calls, deps } = recording({
    append: () => new Error('database down'),
    'delete:b': () => ApplicationFailure.nonRetryable('invalid name', 'InvalidGitName'),
    'notify:1:1': () => new Error('signal refused'),
  });
  const { performSideEffects } = createSideEffectActivities(deps);
  const result = await performSideEffects({
    effects: [append, notify(1, 1), notify(1, 2), notify(2, 1), remove('b'), remove('c')],
  });
  expect(calls.sort()).toEqual(['delete:c', 'notify:2:1']);
  expect(result.done.sort()).toEqual(['delete:c', 'notify:2:1']);
  expect(Object.fromEntries(result.failed.map((f) => [f.key, f.retryable]))).toEqual({
    append: true,
    'notify:1:1': true,
    // In the failed notice's delivery (consecutive notices of a submission go as one).
    'notify:1:2': true,
    // Trying again cannot fix it.
    'delete:b': false,
  });
});

test('a retried call skips the effects its earlier attempt reported done', async () => {
  const { calls, deps } = recording();
  const { performSideEffects } = createSideEffectActivities(deps);
  const env = new MockActivityEnvironment({ heartbeatDetails: ['append', 'notify:1:1'] });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const effects = [append, notify(1, 1), notify(1, 2)];
  const result: SideEffectsResult = await env.run(performSideEffects, { effects });
  expect(calls).toEqual(['notify:1:2']);
  expect(result.done).toEqual(effects.map((e) => e.key));
  // Every heartbeat names what is done, so a further retry skips it too.
  expect(beats[beats.length - 1]).toEqual(['append', 'notify:1:1', 'notify:1:2']);
});

test("a submission's consecutive notice deliveries go in one signal; a refresh between them keeps them apart", async () => {
  const { deps } = recording();
  const deliveries: string[] = [];
  const { performSideEffects } = createSideEffectActivities({
    ...deps,
    notifyPullRequest: ({ workflow: w, notices }) => {
      deliveries.push(`${w.prNumber}:${notices.map((n) => n.seq).join(',')}`);
      return Promise.resolve();
    },
  });
  const effects = [notify(1, 1), notify(2, 1), notify(1, 2), notify(1, 3), refresh(1, 3), notify(1, 4)];
  const result = await performSideEffects({ effects });
  // PR 1's tests_passed (2) and merged (3), say: one delivery, in order; the refresh then the next.
  expect(deliveries.sort()).toEqual(['1:1,2,3', '1:4', '2:1']);
  expect(result.done.sort()).toEqual(effects.map((e) => e.key).sort());
  expect(result.failed).toEqual([]);
});

test('a delivery made of several fails as a whole: each of its effects is reported, retryable', async () => {
  const { performSideEffects } = createSideEffectActivities({
    ...recording().deps,
    notifyPullRequest: () => Promise.reject(new Error('signal refused')),
  });
  const result = await performSideEffects({ effects: [notify(1, 1), notify(1, 2), remove('b')] });
  expect(result.done).toEqual(['delete:b']);
  expect(result.failed).toEqual([
    { key: 'notify:1:1', error: 'signal refused', retryable: true },
    { key: 'notify:1:2', error: 'signal refused', retryable: true },
  ]);
});
