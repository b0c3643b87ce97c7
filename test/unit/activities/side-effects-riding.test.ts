/**
 * riding (activities/side-effects/riding.ts): a git activity that takes the queue's side effects along
 * performs them first, answers their result with its own, and when its git work fails still completes,
 * with the effects' result, so the workflow never waits on the git retries to learn what they did.
 */
import { riding, type Holding } from '../../../activities/side-effects/riding';
import type { SideEffect, SideEffectsInput, SideEffectsResult } from '../../../activities/side-effects/types';

const branch = (n: number): SideEffect => ({
  kind: 'deleteTestBranch',
  key: `${n}:delete:b${n}`,
  repo: { host: 'local', owner: 'o', name: 'r' },
  branchName: `b${n}`,
});

function performer() {
  const calls: string[][] = [];
  const order: string[] = [];
  const perform = (input: SideEffectsInput): Promise<SideEffectsResult> => {
    calls.push(input.effects.map((e) => e.key));
    order.push('effects');
    return Promise.resolve({ done: input.effects.map((e) => e.key), failed: [] });
  };
  return { calls, order, perform };
}

test('without effects the git work alone runs and its result is answered as it is', async () => {
  const p = performer();
  const read = riding(
    p.perform,
    (input: { pr: number }) => Promise.resolve({ pr: input.pr, found: true }),
    1_000,
  );
  await expect(read({ pr: 7 })).resolves.toEqual({ pr: 7, found: true });
  await expect(read({ pr: 7, sideEffects: [] })).resolves.toEqual({ pr: 7, found: true });
  expect(p.calls).toEqual([]);
});

test('effects aboard go first, and their result comes back beside the git result', async () => {
  const p = performer();
  const seen: unknown[] = [];
  const build = riding(
    p.perform,
    (input: { runId: string }) => {
      seen.push(input);
      p.order.push('git');
      return Promise.resolve({ kind: 'built' as const, runId: input.runId });
    },
    1_000,
  );
  const r = await build({ runId: 'r1', sideEffects: [branch(1), branch(2)] });
  expect(p.order).toEqual(['effects', 'git']);
  // The git work gets its own input, without the effects.
  expect(seen).toEqual([{ runId: 'r1' }]);
  expect(r).toEqual({
    kind: 'built',
    runId: 'r1',
    sideEffects: { done: ['1:delete:b1', '2:delete:b2'], failed: [] },
  });
});

test('git work that fails with effects aboard completes with rideFailed and what the effects did', async () => {
  const p = performer();
  const land = riding(
    p.perform,
    (): Promise<{ kind: 'landed' }> => Promise.reject(new Error('host down')),
    1_000,
  );
  await expect(land({ sideEffects: [branch(3)] })).resolves.toEqual({
    rideFailed: 'host down',
    sideEffects: { done: ['3:delete:b3'], failed: [] },
  });
  // Without effects aboard the failure is thrown, for Temporal's retry policy.
  await expect(land({})).rejects.toThrow('host down');
});

/** A holding that keeps deletions of branches named `held-*` until the work answered. */
const holdNamed: Holding<{ runId: string }, { kind: 'built'; runId: string; told?: string[] }> = {
  holds: (_input, e) => e.kind === 'deleteTestBranch' && e.branchName.startsWith('held-'),
  release: (_input, result, held) =>
    held.map((e) =>
      e.kind === 'deleteTestBranch' ? { ...e, branchName: `${e.branchName}@${result ? 'ok' : 'failed'}` } : e,
    ),
  told: (_input, result, performed) => ({ ...result, told: performed.map((e) => e.key) }),
};

const heldBranch = (n: number): SideEffect => ({
  kind: 'deleteTestBranch',
  key: `${n}:delete:b${n}`,
  repo: { host: 'local', owner: 'o', name: 'r' },
  branchName: `held-${n}`,
});

/** A performer that also notes the branch names it was handed, as released. */
function naming() {
  const p = performer();
  const names: string[] = [];
  const perform = (input: SideEffectsInput) => {
    for (const e of input.effects) if (e.kind === 'deleteTestBranch') names.push(e.branchName);
    return p.perform(input);
  };
  return { p, names, perform };
}

test('held effects are performed after the git work, as its result changes them, and the result is told', async () => {
  const { p, names, perform } = naming();
  const build = riding(
    perform,
    (input: { runId: string }) => {
      p.order.push('git');
      return Promise.resolve({ kind: 'built' as const, runId: input.runId });
    },
    1_000,
    holdNamed,
  );
  const r = await build({ runId: 'r1', sideEffects: [heldBranch(1), branch(2)] });
  expect(p.order).toEqual(['effects', 'git', 'effects']);
  expect(names).toEqual(['b2', 'held-1@ok']);
  expect(r).toEqual({
    kind: 'built',
    runId: 'r1',
    told: ['1:delete:b1'],
    sideEffects: { done: ['2:delete:b2', '1:delete:b1'], failed: [] },
  });
});

test('held effects go as they were when the git work fails, before the ride is answered failed', async () => {
  const { p, names, perform } = naming();
  const build = riding(
    perform,
    (): Promise<{ kind: 'built'; runId: string }> => Promise.reject(new Error('host down')),
    1_000,
    holdNamed,
  );
  await expect(build({ runId: 'r1', sideEffects: [heldBranch(4)] })).resolves.toEqual({
    rideFailed: 'host down',
    sideEffects: { done: ['4:delete:b4'], failed: [] },
  });
  // Only held effects aboard: no call before the git work.
  expect(p.calls).toEqual([['4:delete:b4']]);
  expect(names).toEqual(['held-4@failed']);
});
