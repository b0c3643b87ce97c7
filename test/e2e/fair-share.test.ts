/**
 * Fair sharing of executors (issue 17): one organisation with fifty test runs of `sleep` queued cannot
 * take every executor slot, so another organisation's PR on the same deployment merges within one run
 * time. Real control worker, real executor (3 slots, bwrap where available), per-organisation cap 2.
 * FAIR_CAP=100 runs it without a cap that binds: then the other PR is still waiting after 90 s (the
 * busy organisation's runs fill the executor's task queue ahead of it), which is what the cap prevents.
 */
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';

const RUN_SECONDS = 12;
const BUSY_PRS = 50;

let busy: QueueHarness | undefined;
let other: QueueHarness | undefined;
afterEach(async () => {
  await other?.close();
  await busy?.close();
});

test(`an organisation running ${BUSY_PRS} sleeps does not delay another's merge beyond one run time`, async () => {
  busy = await startQueueHarness({
    command: `sleep ${RUN_SECONDS}`,
    executorSlots: 3,
    runsPerOrganisation: Number(process.env.FAIR_CAP ?? 2),
  });
  other = await startQueueHarness({ command: 'true', shareWith: busy });
  // Optimistic parallel testing: every PR of the busy organisation wants a run at once.
  await busy.createQueue({ concurrency: BUSY_PRS });
  for (let n = 1; n <= BUSY_PRS; n++) busy.openPr(n, { [`busy-${n}.txt`]: `${n}\n` });
  for (let n = 1; n <= BUSY_PRS; n++) await busy.submit(n);
  const b = busy;
  // The busy organisation's runs hold its two slots, the executor's third slot is free.
  await b.waitFor('the busy organisation holding its slots', async () => {
    const { rows } = await b.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM run_slots WHERE organisation_id = $1',
      [b.key.organisationId],
    );
    return Number(rows[0]!.n) >= 2;
  });

  await other.createQueue({ concurrency: 1 });
  other.openPr(1, { 'other.txt': 'x\n' });
  const submitted = Date.now();
  await other.submit(1);
  const merged = await other.settled(1, 90_000);
  const waitedMs = Date.now() - submitted;
  if (process.env.FAIR_DEBUG)
    console.log(JSON.stringify(merged.timeline.map((t) => [t.to, t.at - submitted])));
  expect(merged.state).toBe('merged');
  console.log(
    `fair share: the other organisation's PR merged ${waitedMs} ms after submission, ` +
      `while the busy one had ${BUSY_PRS} runs of ${RUN_SECONDS} s waiting for 2 slots`,
  );
  expect(waitedMs).toBeLessThan(RUN_SECONDS * 1000);
  // The cap held throughout, and the busy organisation's work was still waiting (nothing was skipped).
  const { rows } = await b.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM run_slots WHERE organisation_id = $1',
    [b.key.organisationId],
  );
  expect(Number(rows[0]!.n)).toBeLessThanOrEqual(2);
  const stillQueued = (await b.queue()).enqueued.length;
  expect(stillQueued).toBeGreaterThan(BUSY_PRS - 10);
}, 240_000);
