/**
 * Continue-as-new cannot be put off by a steady load (issue 25). A storm of host hints keeps a read of
 * the target always in flight (a hint that arrives during a read makes it read again afterwards), so a
 * queue that waited for a quiet moment before continuing as new never found one. The queue now stops
 * taking changes and holds hints while the work in flight ends: it continues as new during the storm,
 * reads the held hints in its next run, and a PR submitted through the storm (carried to the next run
 * if it arrives while the queue continues as new, ADR 0027) merges.
 */
import { hostHintSignal } from '../../contract';
import { useQueueHarness, type QueueHarness } from '../support/queue-harness';

const newQueue = useQueueHarness();
let h: QueueHarness;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STORM_SENDERS = 4;
const CONTINUE_AS_NEW_AFTER = 80;

test('a storm of hints does not put continue-as-new off, and a PR submitted through it merges', async () => {
  h = await newQueue({ command: 'true' });
  await h.createQueue({ concurrency: 1 }, {}, { continueAsNewAfterEvents: CONTINUE_AS_NEW_AFTER });
  const queue = h.client.workflow.getHandle(h.workflowId);
  const firstRun = (await queue.describe()).runId;

  // Four senders, so hints keep arriving while each read is in flight.
  let storming = true;
  let hints = 0;
  const storm = Promise.all(
    Array.from({ length: STORM_SENDERS }, async () => {
      while (storming) {
        await queue
          .signal(hostHintSignal, { kind: 'target', branch: h.key.targetBranch })
          .then(() => void (hints += 1))
          .catch(() => undefined);
        await sleep(2);
      }
    }),
  );
  try {
    const continued = await h.waitFor(
      'the queue to continue as new during the storm',
      async () => {
        const { runId } = await queue.describe();
        return runId !== firstRun ? runId : undefined;
      },
      60_000,
    );
    expect(continued).not.toBe(firstRun);
    // It stopped soon after it was due: the storm's events (a signal each, a read now and then) did not
    // keep its first run going. Waiting for a quiet moment, that run went on for thousands of events.
    const { historyLength } = await h.client.workflow.getHandle(h.workflowId, firstRun).describe();
    expect(historyLength).toBeLessThan(CONTINUE_AS_NEW_AFTER + 400);
    h.openPr(1, { 'one.txt': '1\n' });
    await h.submit(1);
    expect((await h.settled(1, 60_000)).state).toBe('merged');
  } finally {
    storming = false;
    await storm;
  }
  expect(hints).toBeGreaterThan(50);
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
}, 150_000);
