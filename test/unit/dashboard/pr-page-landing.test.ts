/**
 * A merged PR's page shows its landing proof (docs/git-host.md, "Landing proof"): the record's
 * testedTree and landedTree among the listed fields (the page lists a record's fields without naming
 * them), its reasonDetail's trees with the sentence saying whether main holds the tested tree.
 */
import { viewOfRecord } from '../../../api/dashboard/routes/pull-request';
import { explainState, type ReasonDetail } from '../../../contract';

test("a merged record's tested and landed trees are on its page", () => {
  const tree = 'a'.repeat(40);
  const detail: ReasonDetail = { kind: 'landing', sha: 'c'.repeat(40), testedTree: tree, landedTree: tree };
  const reasonText = explainState({
    state: 'merged',
    reason: 'MERGE_GRAPH_MERGE',
    detail,
    targetBranch: 'main',
  });
  const view = viewOfRecord({
    state: 'merged',
    reasonText,
    reasonDetail: detail,
    testedTree: tree,
    landedTree: tree,
  });
  expect(view.fields).toEqual(
    expect.arrayContaining([
      { key: 'testedTree', value: tree },
      { key: 'landedTree', value: tree },
    ]),
  );
  // The detail explains the reason, so the page shows it with the sentence.
  expect(view.why).toEqual([
    {
      key: 'reasonText',
      text: 'Merged: the queue merged it after its tests passed; main holds the tree its test run tested (aaaaaaaaaaaa).',
    },
    { key: 'reasonDetail.kind', text: 'landing' },
    { key: 'reasonDetail.sha', text: 'c'.repeat(40) },
    { key: 'reasonDetail.testedTree', text: tree },
    { key: 'reasonDetail.landedTree', text: tree },
  ]);
});
