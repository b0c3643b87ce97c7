/**
 * What a build takes for itself when builds of several runs start from one pump (SPLIT_RIDES_PATCH;
 * workflows/queue/side-effect-calls.ts, riding-git.ts): its own run's moves to `testing`, never an
 * effect ahead of which its submission has one it does not claim, and nothing for the first rider
 * (it takes the rest). And how a call's result is read (`outcomes`).
 */
import type { QueueKey } from '../../../contract';
import { movesToTestingIn } from '../../../workflows/queue/riding-git';
import {
  claimsDue,
  MAX_ATTEMPTS,
  outcomes,
  takeDue,
  type Pending,
  type Rider,
} from '../../../workflows/queue/side-effect-calls';

const key = { repo: { host: 'github.com', owner: 'o', name: 'r' }, targetBranch: 'main' } as QueueKey;

function notice(pr: number, to: string, testRunId?: string, seq = 2): Pending {
  const workflow = { key, prNumber: pr, submissionId: `s${pr}`, submittedAt: 0 };
  const transition = { to, at: 0, ...(testRunId ? { testRunId } : {}) };
  return {
    effect: {
      kind: 'notifyPullRequest',
      key: `notify:s${pr}:${seq}`,
      workflow,
      notices: [{ submissionId: `s${pr}`, seq, transition, details: {} }],
    } as unknown as Pending['effect'],
    attempts: 0,
    notBefore: 0,
  };
}

const deletion = (branchName: string): Pending => ({
  effect: { kind: 'deleteTestBranch', key: `delete:${branchName}`, repo: key.repo, branchName },
  attempts: 0,
  notBefore: 0,
});

const rider = (claim?: Rider['claim']): Rider => ({
  start: () => Promise.resolve({}),
  resolve: () => undefined,
  reject: () => undefined,
  ...(claim ? { claim } : {}),
});

test("a build claims only its own run's moves to testing", () => {
  const claim = movesToTestingIn('run-b');
  expect(claim(notice(2, 'testing', 'run-b').effect)).toBe(true);
  expect(claim(notice(1, 'testing', 'run-a').effect)).toBe(false);
  expect(claim(notice(2, 'pending').effect)).toBe(false);
  expect(claim(deletion('x').effect)).toBe(false);
});

test('with no call in flight the first rider takes the rest; a later one claims what of its is due now', () => {
  const waiting = [notice(1, 'testing', 'run-a'), notice(2, 'testing', 'run-b')];
  const riders = [rider(movesToTestingIn('run-a')), rider(movesToTestingIn('run-b')), rider()];
  expect(claimsDue(riders, waiting, 10, true).map((c) => c !== null)).toEqual([false, true, false]);
  // One rider alone: nothing to split.
  expect(claimsDue(riders.slice(0, 1), waiting, 10, true)).toEqual([]);
  // Not due yet (a backoff): no claim.
  const later = [{ ...notice(2, 'testing', 'run-b'), notBefore: 11 }];
  expect(claimsDue(riders, later, 10, true).some(Boolean)).toBe(false);
});

test('with a call in flight every rider may claim, a lone one too', () => {
  const waiting = [notice(1, 'testing', 'run-a'), notice(2, 'testing', 'run-b')];
  const riders = [rider(movesToTestingIn('run-a')), rider(movesToTestingIn('run-b')), rider()];
  expect(claimsDue(riders, waiting, 10, false).map((c) => c !== null)).toEqual([true, true, false]);
  expect(claimsDue(riders.slice(1, 2), waiting, 10, false).map((c) => c !== null)).toEqual([true]);
});

test("a claimed batch takes the claimed effects and leaves the rest, and a submission's order holds", () => {
  const earlier = notice(3, 'pending', undefined, 1);
  const waiting = [notice(1, 'testing', 'run-a'), deletion('b'), notice(2, 'testing', 'run-b'), earlier];
  waiting.push(notice(3, 'testing', 'run-b', 2));
  const claim = movesToTestingIn('run-b');
  const own = takeDue(waiting, 10, (e) => !claim(e));
  // PR 2's move is taken; PR 3's stays behind its earlier notice, which the build does not claim.
  expect(own.map((p) => p.effect.key)).toEqual(['notify:s2:2']);
  expect(waiting.map((p) => p.effect.key)).toEqual(['notify:s1:2', 'delete:b', 'notify:s3:1', 'notify:s3:2']);
});

test('outcomes: delivered notices, failures tried again under their produced keys, the hopeless dropped', () => {
  const sent = [notice(1, 'testing', 'run-a'), notice(2, 'testing', 'run-b'), deletion('b')].map((p, i) => ({
    ...p,
    effect: { ...p.effect, key: `1:${p.effect.key}` },
    attempts: i === 2 ? MAX_ATTEMPTS.deleteTestBranch - 1 : 0,
  }));
  const done = new Set(['1:notify:s1:2']);
  const failed = new Map([
    ['1:notify:s2:2', { error: 'down' }],
    ['1:delete:b', { error: 'refused' }],
  ]);
  const { delivered, again, dropped } = outcomes(sent, done, failed, 1_000);
  expect(delivered).toEqual(['s1']);
  expect(again.map((p) => [p.effect.key, p.attempts, p.notBefore])).toEqual([['notify:s2:2', 1, 2_000]]);
  expect(dropped).toEqual([{ key: '1:delete:b', attempts: MAX_ATTEMPTS.deleteTestBranch, error: 'refused' }]);
});
