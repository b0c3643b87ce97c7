import { initialState, type QueueConfigPatch, type QueueState } from '../../../engine';
import { openDraft } from '../../../engine/draft';
import { failureRateOf, KEEP, observeCulprit, observeMerged, PRIOR } from '../../../engine/failure-rate';

const ctx = { now: 0, newId: () => 'x' };

/** An observation: that many PRs merged, or one culprit blamed. */
type Outcome = number | 'culprit';

function observed(config: QueueConfigPatch, outcomes: Outcome[], state = initialState(config)): QueueState {
  const d = openDraft(state, ctx);
  for (const o of outcomes) {
    if (o === 'culprit') observeCulprit(d);
    else observeMerged(d, o);
  }
  return d.state;
}

/** The same estimate computed the long way: every outcome ages the earlier ones by KEEP. */
function expected(outcomes: Outcome[]): number {
  let { merged, culprits } = PRIOR;
  for (const o of outcomes) {
    for (let i = 0; i < (o === 'culprit' ? 1 : o); i += 1) {
      merged = merged * KEEP + (o === 'culprit' ? 0 : 1);
      culprits = culprits * KEEP + (o === 'culprit' ? 1 : 0);
    }
  }
  return culprits / (culprits + merged);
}

describe('failure rate', () => {
  it.each<[string, Outcome[], number]>([
    ['starts from the prior, 1 in 20', [], 0.05],
    ['a culprit raises it', ['culprit'], 0.0547],
    ['merges lower it', [100], 0.0328],
    ['a merge of a batch counts each PR', [4, 4], 0.0481],
    ['a run of culprits moves it a lot, not all the way', Array<Outcome>(20).fill('culprit'), 0.1372],
  ])('%s', (_name, outcomes, approx) => {
    const rate = failureRateOf(observed({ batch: true }, outcomes));
    expect(rate).toBeCloseTo(approx, 4);
    expect(rate).toBe(expected(outcomes));
  });

  it('forgets old outcomes: a long good stretch brings it near zero, with bounded weights', () => {
    const state = observed({ batch: true }, [...Array<Outcome>(50).fill('culprit'), 100_000]);
    expect(failureRateOf(state)).toBeLessThan(1e-6);
    expect(state.failureRate!.merged).toBeLessThanOrEqual(1024);
  });

  it.each<[string, QueueState]>([
    ['without batching', initialState({ batch: false })],
    ['with the threshold off', initialState({ batch: true, speculationThreshold: 0 })],
  ])('observes nothing %s', (_name, state) => {
    const after = observed({}, ['culprit', 3], state);
    expect(after.failureRate).toBeUndefined();
    expect(JSON.stringify(after)).toBe(JSON.stringify(state));
  });

  it('replaces the estimate instead of changing the input state', () => {
    const before = observed({ batch: true }, ['culprit']);
    const copy = structuredClone(before.failureRate);
    observed({ batch: true }, [10], before);
    expect(before.failureRate).toEqual(copy);
  });
});
