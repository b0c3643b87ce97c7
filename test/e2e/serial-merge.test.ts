/** Stories of the single-mode queue on the real stack: real Temporal, real worker, real git. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { explainState, prWorkflowId, type PrTransitionNotice } from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

/** The signals PR `n`'s workflow took, in order: the states each delivery moved it to. */
async function signalsOf(
  h: QueueHarness,
  n: number,
): Promise<{ name: string; to: string[]; testedOn?: boolean }[]> {
  const { events } = await h.client.workflow.getHandle(prWorkflowId(h.key, n)).fetchHistory();
  return (events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
    .map((e) => {
      const a = e.workflowExecutionSignaledEventAttributes!;
      const name = a.signalName!;
      if (name !== 'prTransitions') return { name, to: [] as string[] };
      const notices = defaultPayloadConverter.fromPayload<PrTransitionNotice[]>(a.input!.payloads![0]!);
      const testedOn = notices.at(-1)?.testedOn !== undefined;
      return { name, to: notices.map((x) => x.transition.to), ...(testedOn ? { testedOn } : {}) };
    });
}

const newQueue = useQueueHarness();
let h: QueueHarness;

test('three PRs submitted in order merge in order, each on a tested tree', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' });
  h.openPr(1, { 'one.txt': '1\n' });
  h.openPr(2, { 'two.txt': '2\n' });
  h.openPr(3, { 'three.txt': '3\n' });
  await h.submit(1);
  await h.submit(2);
  await h.submit(3);
  for (const n of [1, 2, 3]) expect((await h.settled(n)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 3 (#3)']);
  const record = await h.pr(3);
  expect(record?.timeline.map((t) => t.to)).toEqual([
    'not_ready',
    'pending',
    'testing',
    'tests_passed',
    'merged',
  ]);
  expect(record?.verifiedByTestRun).toMatch(/[0-9a-f-]{36}/);
  // PR 3's workflow learned tests_passed and merged in one delivery (they wait for the landing:
  // workflows/queue/passed-with-landing.ts), and its commit from the notice that it tests, when that
  // notice rode with the build, or from one details refresh when not.
  const deliveries = await signalsOf(h, 3);
  expect(deliveries.at(-1)).toMatchObject({ name: 'prTransitions', to: ['tests_passed', 'merged'] });
  const details = deliveries.filter((d) => d.name === 'prDetails').length;
  const carried = deliveries.some(
    (d) => d.name === 'prTransitions' && d.to.at(-1) === 'testing' && d.testedOn,
  );
  expect(carried ? 0 : 1).toBe(details);
  // The landing's proof: main holds the tree PR 3's passing run tested, read back after the landing.
  const mainTree = h.fx.bareGit('rev-parse', 'main^{tree}');
  expect(record?.timeline.at(-1)?.detail).toEqual({
    kind: 'landing',
    sha: h.fx.tip('main'),
    testedTree: mainTree,
    landedTree: mainTree,
  });
  expect((await h.queue()).enqueued).toEqual([]);
  // Every transition is in the event log, once, in order.
  const logged = await h.waitFor('the event log', async () => {
    const { rows } = await h.pool.query<{ pr_number: string; to_state: string }>(
      'SELECT pr_number, to_state FROM pr_transitions WHERE organisation_id = $1 ORDER BY pr_number, seq',
      [h.key.organisationId],
    );
    return rows.filter((r) => r.to_state === 'merged').length === 3 ? rows : undefined;
  });
  expect(logged.filter((r) => r.pr_number === '3').map((r) => r.to_state)).toEqual([
    'not_ready',
    'pending',
    'testing',
    'tests_passed',
    'merged',
  ]);
  // Test branches are deleted when their runs end.
  await h.waitFor('test branches to be deleted', () =>
    Promise.resolve(h.fx.bareGit('for-each-ref', 'refs/heads/railyard-merge/') === ''),
  );
}, 120_000);

test('concurrency 3: PR 3 is tested on top of PRs 1 and 2 while they are still testing', async () => {
  // The runs wait for $GATE/go: on a loaded machine a fixed sleep let PR 1 pass before PR 3 was
  // seen testing (a PR is testing once its build is done: held-testing-notices.ts).
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 3 });
  for (const n of [1, 2, 3]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  for (const n of [1, 2, 3]) await h.submit(n);
  const testing = await h.waitFor('three PRs testing at once', async () => {
    const q = await h.queue();
    return q.enqueued.filter((p) => p.state === 'testing').length === 3 ? q : undefined;
  });
  expect(testing.enqueued.map((p) => p.pr)).toEqual([1, 2, 3]);
  writeFileSync(join(h.gate, 'go'), '');
  for (const n of [1, 2, 3]) expect((await h.settled(n)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)', 'PR 3 (#3)']);
}, 120_000);

test('a PR that conflicts with a PR ahead of it fails naming that PR and the file, not every PR ahead', async () => {
  // The runs ahead wait for $GATE/go, so #3 is built (stacked) on #1 and #2 while they are still testing.
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 3 });
  h.openPr(1, { 'lines.txt': 'a\nB1\nc\nd\ne\n' });
  h.openPr(2, { 'two.txt': '2\n' });
  h.openPr(3, { 'lines.txt': 'a\nB3\nc\nd\ne\n' });
  for (const n of [1, 2, 3]) await h.submit(n);
  // It waits for the PRs ahead before it is blamed (pending_failure), then fails once they merged.
  const waiting = await h.waitFor('PR 3 to wait on the PRs ahead', async () => {
    const r = await h.pr(3);
    return r?.state === 'pending_failure' ? r : undefined;
  });
  const conflict = {
    kind: 'conflict',
    pr: 3,
    files: ['lines.txt'],
    onTopOf: [1, 2],
    clashesWith: [1],
  };
  expect(waiting.timeline.at(-1)?.detail).toEqual(conflict);
  writeFileSync(join(h.gate, 'go'), '');
  for (const n of [1, 2]) expect((await h.settled(n)).state).toBe('merged');
  const failed = await h.settled(3);
  expect([failed.state, failed.reason]).toEqual(['failed', 'START_TEST_RUN_MERGE_CONFLICT']);
  expect(failed.timeline.at(-1)?.detail).toEqual(conflict);
  const sentence = explainState({ ...failed, detail: failed.timeline.at(-1)?.detail, targetBranch: 'main' });
  expect(sentence).toBe('Failed: #3 conflicts with #1 (tested ahead of it on main) in file lines.txt.');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
}, 120_000);

test('a broken PR fails and the one behind it is retested without it and merges', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 2 });
  h.openPr(1, { BROKEN: 'yes\n' });
  h.openPr(2, { 'two.txt': '2\n' });
  await h.submit(1);
  await h.submit(2);
  expect((await h.settled(1)).state).toBe('failed');
  const merged = await h.settled(2);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.map((t) => t.reason)).toContain('PREREQUISITE_MERGE_ITEM_FAILED');
  expect(h.mainLog()).toEqual(['PR 2 (#2)']);
}, 120_000);

test('resubmitting a queued PR changes its priority in place', async () => {
  // PR 1's run waits for $GATE/go, so it is still testing when the line is read (a fixed sleep could
  // end first on a loaded machine, and PR 1 would have left the line).
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 1 });
  for (const n of [1, 2, 3]) h.openPr(n, { [`f${n}.txt`]: `${n}\n` });
  for (const n of [1, 2, 3]) await h.submit(n);
  await h.submit(3, { priority: 10 });
  const q = await h.queue();
  expect(q.enqueued.find((p) => p.pr === 3)).toMatchObject({ priorityValue: 10, priorityName: 'high' });
  expect(q.enqueued.map((p) => p.pr)).toEqual([1, 3, 2]);
  expect((await h.pr(3))?.id).toBe((await h.pr(3))?.id);
  writeFileSync(join(h.gate, 'go'), '');
}, 60_000);

test('a landing whose commit no longer holds the tested tree is refused: LANDED_TREE_DIFFERS, main unchanged', async () => {
  h = await newQueue({ command: 'while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  await h.createQueue({ concurrency: 1, mergeMethod: 'merge_commit' });
  h.openPr(1, { 'planted.txt': 'p\n' });
  await h.submit(1);
  // Planted only once the queue holds the build's result (the record names the tested commit then): the
  // build reads the tree it tested after pushing the branch, and a plant before that read was recorded
  // as what was tested (a race a loaded fresh clone lost).
  const branch = await h.waitFor('the test branch of PR 1, built and recorded', async () => {
    const testing = (await h.queue()).enqueued.some((p) => p.pr === 1 && p.state === 'testing');
    const refs = h.fx.bareGit('for-each-ref', '--format=%(objectname)', 'refs/heads/railyard-merge/');
    const recorded = refs !== '' && (await h.pr(1))?.testedOn?.sha === refs;
    return testing && recorded ? refs : undefined;
  });
  // Planted while the run tests: the tested commit's id now resolves to other content (main's tree).
  const tipBefore = h.fx.tip('main');
  const other = h.fx.bareGit('commit-tree', 'main^{tree}', '-p', tipBefore, '-m', 'not what was tested');
  h.fx.bareGit('replace', branch, other);
  writeFileSync(join(h.gate, 'go'), '');
  const failed = await h.settled(1);
  expect([failed.state, failed.reason]).toEqual(['failed', 'LANDED_TREE_DIFFERS']);
  expect(failed.timeline.at(-1)?.detail).toEqual({
    kind: 'problem',
    text: expect.stringMatching(
      new RegExp(
        `^Refused to move main to ${branch}: the host holds tree [0-9a-f]{40} for that commit, not the tree [0-9a-f]{40} its test run tested`,
      ),
    ),
  });
  expect(h.fx.tip('main')).toBe(tipBefore);
}, 120_000);

test('a PR whose description has a merge-commit-title: line lands under that title', async () => {
  h = await newQueue();
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' });
  // On the local host a PR's description is its head commit's message below the subject.
  h.fx.git('fetch', '--quiet', 'origin');
  h.fx.branchFrom('pr-1', 'origin/main');
  h.fx.pushPr(
    1,
    h.fx.commit('Add one\n\nmerge-commit-title: one: titled by the description', { 'one.txt': '1\n' }),
  );
  await h.submit(1);
  expect((await h.settled(1)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['one: titled by the description']);
}, 60_000);
