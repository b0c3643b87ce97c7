/** Hints held while the queue continues as new (workflows/queue/carried.ts `holdHint`): bounded, once each. */
import type { HostHint } from '../../../contract';
import { holdHint, MAX_HELD_HINTS } from '../../../workflows/queue/carried';

const fold = (hints: HostHint[]) => hints.reduce<HostHint[]>((held, h) => holdHint(held, h), []);

test('each hint is held once, in arrival order', () => {
  expect(
    fold([
      { kind: 'target', branch: 'main' },
      { kind: 'pull_request', pr: 2 },
      { kind: 'target', branch: 'main' },
      { kind: 'checks', sha: 'abc' },
    ]),
  ).toEqual([
    { kind: 'target', branch: 'main' },
    { kind: 'pull_request', pr: 2 },
    { kind: 'checks', sha: 'abc' },
  ]);
});

test('a reconcile, or more hints than the bound, is held as one reconcile that stays', () => {
  expect(
    fold([{ kind: 'pull_request', pr: 1 }, { kind: 'reconcile' }, { kind: 'pull_request', pr: 2 }]),
  ).toEqual([{ kind: 'reconcile' }]);
  const many = Array.from({ length: MAX_HELD_HINTS + 1 }, (_, pr): HostHint => ({
    kind: 'pull_request',
    pr,
  }));
  expect(fold(many)).toEqual([{ kind: 'reconcile' }]);
  expect(fold(many.slice(0, MAX_HELD_HINTS))).toHaveLength(MAX_HELD_HINTS);
});
