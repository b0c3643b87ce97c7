/**
 * Which failed updates the queue client sends again (lost-update.ts), on the errors the Temporal
 * TypeScript client itself builds from the server's gRPC statuses, and what updateQueue does with them:
 * the same update id again while a run of the queue runs, `queue_not_found` when none does, `busy` when
 * the budget is spent; an error that says nothing of a lost update is passed on as before.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { Connection, WorkflowClient, type UpdateDefinition } from '@temporalio/client';
import { isUnavailable } from '../../../queue-client/grpc-status';
import { LostUpdate, markLost, updateLoss } from '../../../queue-client/lost-update';
import { createQueueClient } from '../../../queue-client/client';
import { isQueueProblem } from '../../../queue-client/errors';

/** A gRPC error as @grpc/grpc-js hands it to the client. */
function grpcError(code: status, details: string): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });
}

/** What WorkflowHandle.executeUpdate throws when the server answers `code` / `details`. */
function clientError(code: status, details: string): unknown {
  const client = new WorkflowClient({ connection: Connection.lazy() });
  try {
    (
      client as unknown as { rethrowUpdateGrpcError(e: unknown, m: string, w: object): never }
    ).rethrowUpdateGrpcError(grpcError(code, details), 'Workflow Update failed', { workflowId: 'queue-1' });
  } catch (err) {
    return err;
  }
  throw new Error('the client did not throw');
}

test.each([
  [
    status.FAILED_PRECONDITION,
    'Unable to perform workflow execution update due to unexpected workflow task failure.',
    'task_failed',
  ],
  [
    status.FAILED_PRECONDITION,
    'Unable to perform workflow execution update due to Workflow Task in failed state.',
    'task_failed',
  ],
  [status.NOT_FOUND, 'workflow update was aborted by closing workflow', 'run_closed'],
  [status.NOT_FOUND, 'workflow execution already completed', 'run_closed'],
  [status.UNAVAILABLE, 'workflow update was aborted', 'aborted'],
  // Not lost: a queue that never ran, a busy or closing run (calls.ts retries those), an outage, a bad request.
  [status.NOT_FOUND, 'workflow not found for ID: queue-1', null],
  [status.RESOURCE_EXHAUSTED, 'workflow operation can not be applied because workflow is closing', null],
  [status.UNAVAILABLE, 'connection refused', null],
  [status.FAILED_PRECONDITION, 'Namespace default is not active', null],
  [status.INVALID_ARGUMENT, 'workflow update was aborted', null],
] as const)('code %s "%s" is %s', (code, details, loss) => {
  expect(updateLoss(clientError(code, details))).toBe(loss);
});

test('a lost update is not read as Temporal not answering (calls.ts), though its ServiceError would be', () => {
  const original = clientError(
    status.FAILED_PRECONDITION,
    'Unable to perform workflow execution update due to unexpected workflow task failure.',
  );
  expect(isUnavailable(original)).toBe(true);
  expect(isUnavailable(new LostUpdate('task_failed', original))).toBe(false);
});

test('markLost passes an answer and an unrelated error on untouched', async () => {
  await expect(markLost(() => Promise.resolve(7))).resolves.toBe(7);
  const other = new Error('boom');
  await expect(markLost(() => Promise.reject(other))).rejects.toBe(other);
});

const def = { name: 'submit', type: 'update' } as unknown as UpdateDefinition<string, [string]>;
const lost = () =>
  clientError(
    status.FAILED_PRECONDITION,
    'Unable to perform workflow execution update due to unexpected workflow task failure.',
  );

/** A queue client on a stub Temporal whose update answers are `answers` in turn and whose run `status` is asked. */
function stubbed(answers: (() => unknown)[], status: () => string, busyBudgetMs = 5_000) {
  const sent: string[] = [];
  const handle = {
    executeUpdate: (_d: unknown, { updateId }: { updateId: string }) => {
      sent.push(updateId);
      const answer = answers[Math.min(sent.length - 1, answers.length - 1)]!;
      return Promise.resolve().then(answer);
    },
    describe: () => Promise.resolve({ status: { name: status() } }),
  };
  const temporal = {
    busyBudgetMs,
    call: <T>(_what: string, fn: () => Promise<T>) => fn(),
    client: { workflow: { getHandle: () => handle } },
  };
  return { queues: createQueueClient(temporal as never), sent };
}

test('an update the server gave up is sent again with the same id while the queue runs', async () => {
  const { queues, sent } = stubbed(
    [
      () => {
        throw lost();
      },
      () => {
        throw lost();
      },
      () => 'taken',
    ],
    () => 'RUNNING',
  );
  await expect(queues.updateQueue('submit', 'queue-1', def, { updateId: 'u-1', args: ['x'] })).resolves.toBe(
    'taken',
  );
  expect(sent).toEqual(['u-1', 'u-1', 'u-1']);
});

test('a lost update of a queue with no running run is queue_not_found, sent once', async () => {
  const { queues, sent } = stubbed(
    [
      () => {
        throw lost();
      },
    ],
    () => 'COMPLETED',
  );
  const err = await queues
    .updateQueue('submit', 'queue-1', def, { updateId: 'u-1', args: ['x'] })
    .catch((e: unknown) => e);
  expect(isQueueProblem(err, 'queue_not_found')).toBe(true);
  expect(sent).toEqual(['u-1']);
});

test('a lost update is sent again only within the busy budget, then busy', async () => {
  const { queues, sent } = stubbed(
    [
      () => {
        throw lost();
      },
    ],
    () => 'RUNNING',
    1_200,
  );
  const err = await queues
    .updateQueue('submit', 'queue-1', def, { updateId: 'u-1', args: ['x'] })
    .catch((e: unknown) => e);
  expect(isQueueProblem(err, 'busy')).toBe(true);
  expect(sent.length).toBeGreaterThan(1);
  expect(new Set(sent)).toEqual(new Set(['u-1']));
});
