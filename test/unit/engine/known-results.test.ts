import { initialState, type KnownResult } from '../../../engine';
import { openDraft } from '../../../engine/draft';
import { MAX_KNOWN_RESULTS, rebaseResults, recordResult } from '../../../engine/known-results';

const result = (tree: number[]): KnownResult => ({ tree, passed: false, runId: null });
const ctx = { now: 0, newId: () => 'x' };

describe('known results', () => {
  it.each<[string, number[], number[], number[][]]>([
    ['a merged prefix is stripped', [1, 2, 3, 4], [1, 2], [[3, 4]]],
    ['a merge of the whole tree leaves nothing to know', [1, 2], [1, 2], []],
    ['a merge in another order than the tree keeps the content', [1, 2, 3], [2, 1], [[3]]],
    ['a merge not at the bottom of the tree drops it', [1, 2, 3], [2], []],
    ['a merge of other PRs drops it (its base is gone)', [1, 2], [9], []],
  ])('%s', (_name, tree, merged, expected) => {
    const d = openDraft({ ...initialState(), knownResults: [result(tree)] }, ctx);
    rebaseResults(d, merged);
    expect(d.state.knownResults.map((r) => r.tree)).toEqual(expected);
  });

  it('keeps only the newest results, one per tree', () => {
    const d = openDraft(initialState(), ctx);
    for (let i = 0; i < MAX_KNOWN_RESULTS + 5; i += 1) {
      recordResult(d, { ...group(i), status: 'failed' }, false);
    }
    recordResult(d, group(MAX_KNOWN_RESULTS + 4), true);
    expect(d.state.knownResults).toHaveLength(MAX_KNOWN_RESULTS);
    expect(d.state.knownResults.at(-1)).toEqual({ tree: [MAX_KNOWN_RESULTS + 4], passed: true, runId: 'r' });
    expect(d.state.knownResults[0]?.tree).toEqual([5]);
  });
});

function group(pr: number) {
  return {
    key: pr,
    prs: [pr],
    bisection: false,
    direct: false,
    status: 'passed' as const,
    ahead: [],
    exact: true,
    runId: 'r',
    baseSha: null,
    startedAt: null,
    deadline: null,
    failure: null,
  };
}
