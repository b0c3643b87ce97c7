/**
 * How the merge-queue service maps what the queue workflow answers (through the queue client's errors)
 * to HTTP errors, and what it sends: one row per QueueRejection, plus the failures it must not swallow.
 * The Temporal client under the queue client is a stub that records the update call and fails it as
 * told.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import { createQueueClient, type TemporalCalls } from '../../../queue-client';

const Q = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };
const ORG = { id: 'org-1', slug: 'acme' };
const CHANGE = { org: ORG, updateId: 'cancelPullRequest/abc' };

/** What the queue's admission query answers, call after call (the last one repeats). */
type Admission = Record<string, unknown> | Error;

function stubGateway(
  fail: Error | undefined,
  admissions: Admission[] = [{ state: 'settled' }],
  prStates: string[] = ['cancelled'],
) {
  const updates: { workflowId: string; name: string; options: unknown }[] = [];
  const prReads: string[] = [];
  const started: { type: string; options: Record<string, unknown> }[] = [];
  const queries: string[][] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        workflowId,
        executeUpdate: (def: { name: string }, options: unknown) => {
          updates.push({ workflowId, name: def.name, options });
          const result =
            def.name === 'submitPullRequest' ? { submissionId: 's-1', resubmitted: false } : undefined;
          return fail === undefined ? Promise.resolve(result) : Promise.reject(fail);
        },
        // A PR's record: running until its state is terminal.
        describe: () => Promise.resolve({ status: { name: 'RUNNING' } }),
        query: (def: { name: string }, ids: string[]) => {
          if (def.name === 'getPullRequest') {
            prReads.push(workflowId);
            return Promise.resolve({ state: prStates[Math.min(prReads.length - 1, prStates.length - 1)] });
          }
          queries.push(ids);
          const answer = admissions[Math.min(queries.length - 1, admissions.length - 1)]!;
          if (answer instanceof Error) return Promise.reject(answer);
          return Promise.resolve(Object.fromEntries(ids.map((id) => [id, answer])));
        },
      }),
      start: (type: string, options: Record<string, unknown>) => {
        started.push({ type, options });
        return fail === undefined ? Promise.resolve({}) : Promise.reject(fail);
      },
    },
  };
  const temporal = {
    client,
    taskQueue: 'tq',
    busyBudgetMs: 2_000,
    call: <T>(_what: string, fn: () => Promise<T>) => fn(),
  } as unknown as TemporalCalls;
  return {
    service: createMergeQueueService(createQueueClient(temporal)),
    updates,
    started,
    queries,
    prReads,
  };
}

const rejected = (type: string, message: string) =>
  new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ type, message }));

test.each([
  ['not_found', 404],
  ['deleted', 404],
  ['not_empty', 400],
  ['invalid', 400],
  ['unavailable', 503],
  // Asked again until the busy budget (2 s here) ran out: the queue never came back from continuing.
  ['continuing', 503],
])('a %s rejection → %i with its own sentence', async (type, status) => {
  const { service } = stubGateway(rejected(type, 'Pull request #5 is not in the merge queue.'));
  await expect(service.cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } })).rejects.toMatchObject({
    statusCode: status,
    message: 'Pull request #5 is not in the merge queue.',
  });
});

test('a change refused while the queue continues as new is sent again with its update id, then taken', async () => {
  const sent: unknown[] = [];
  // The first two attempts land while the queue is continuing as new.
  const queue = createQueueClient({
    client: {
      workflow: {
        getHandle: (workflowId: string) => ({
          workflowId,
          executeUpdate: (_def: unknown, options: unknown) => {
            sent.push(options);
            return sent.length <= 2
              ? Promise.reject(rejected('continuing', 'The merge queue is continuing as new.'))
              : Promise.resolve(undefined);
          },
          describe: () => Promise.resolve({ status: { name: 'COMPLETED' } }),
          result: () => Promise.resolve({ state: 'cancelled' }),
        }),
      },
    },
    taskQueue: 'tq',
    busyBudgetMs: 2_000,
    call: <T>(_what: string, fn: () => Promise<T>) => fn(),
  } as unknown as TemporalCalls);
  await createMergeQueueService(queue).cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } });
  expect(sent).toHaveLength(3);
  expect(new Set(sent.map((o) => (o as { updateId: string }).updateId))).toEqual(new Set([CHANGE.updateId]));
});

test('a missing workflow → the queue 404', async () => {
  const { service } = stubGateway(new WorkflowNotFoundError('not found', 'queue/x', undefined));
  await expect(service.cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } })).rejects.toMatchObject({
    statusCode: 404,
    message: 'No merge queue exists for branch "main" of github.com/acme/app.',
  });
});

test.each([
  ['an unknown failure type', rejected('boom', 'internal detail')],
  ['an update failure without an application failure', new WorkflowUpdateFailedError('x', undefined)],
  ['any other error', new Error('socket hang up')],
])('%s is passed on untouched (a 500)', async (_name, err) => {
  const { service } = stubGateway(err);
  await expect(service.cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } })).rejects.toBe(err);
});

test('the update goes to the organisation-scoped queue id with the route update id', async () => {
  const { service, updates } = stubGateway(undefined);
  await service.cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } });
  expect(updates).toEqual([
    {
      workflowId: 'queue/org-1/github.com/acme/app/main',
      name: 'cancelPullRequest',
      options: {
        updateId: 'cancelPullRequest/abc',
        args: [{ pr: 5, actor: 'an API key of organisation acme' }],
      },
    },
  ]);
});

test('a cancel answers once the PR record shows it ended: read-your-writes, as for a submit', async () => {
  // The queue decided at once; the PR's record hears of it a few reads later.
  const { service, prReads } = stubGateway(undefined, undefined, ['pending', 'pending', 'cancelled']);
  await service.cancelPullRequest(CHANGE, { ...Q, pr: { number: 5 } });
  expect(prReads).toEqual(Array(3).fill('pr/org-1/github.com/acme/app/main/5'));
});

test('createQueue: workflow type, id, input, conflict policy; an existing one → 409', async () => {
  const { service, started } = stubGateway(undefined);
  await service.createQueue(ORG, { ...Q, mode: 'parallel' });
  expect(started[0]).toMatchObject({
    type: 'queueWorkflow',
    options: {
      workflowId: 'queue/org-1/github.com/acme/app/main',
      taskQueue: 'tq',
      workflowIdConflictPolicy: 'FAIL',
      args: [{ key: { organisationId: 'org-1', ...Q }, config: { mode: 'parallel' } }],
    },
  });
  const dup = stubGateway(new WorkflowExecutionAlreadyStartedError('started', 'queue/x', 'queueWorkflow'));
  await expect(dup.service.createQueue(ORG, Q)).rejects.toMatchObject({
    statusCode: 409,
    message: 'A merge queue already exists for branch "main" in this repository.',
  });
});

const SUBMIT = { ...Q, pr: { number: 5 }, priority: null };
const SUBMIT_CHANGE = { org: ORG, updateId: 'submitPullRequest/abc' };

test('submit answers once the queue reports the submission settled, asking until it is', async () => {
  const { service, queries } = stubGateway(undefined, [
    { state: 'pending' },
    { state: 'pending' },
    { state: 'settled' },
  ]);
  await service.submitPullRequest(SUBMIT_CHANGE, SUBMIT);
  expect(queries).toEqual([['s-1'], ['s-1'], ['s-1']]);
});

test.each([
  ['not_found', 404],
  ['deleted', 404],
  ['unavailable', 503],
])('a submission rejected by its admission (%s) → %i with the queue sentence', async (rejection, status) => {
  const message = 'Pull request #5 was not found in github.com/acme/app.';
  const { service } = stubGateway(undefined, [{ state: 'rejected', rejection, message }]);
  await expect(service.submitPullRequest(SUBMIT_CHANGE, SUBMIT)).rejects.toMatchObject({
    statusCode: status,
    message,
  });
});

test('a queue deleted while the submission waits → the queue 404', async () => {
  const { service } = stubGateway(undefined, [new WorkflowNotFoundError('gone', 'queue/x', undefined)]);
  await expect(service.submitPullRequest(SUBMIT_CHANGE, SUBMIT)).rejects.toMatchObject({
    statusCode: 404,
    message: 'No merge queue exists for branch "main" of github.com/acme/app.',
  });
});

test('a submission still pending at the busy budget → 503 telling the caller to submit again', async () => {
  const { service } = stubGateway(undefined, [{ state: 'pending' }]);
  await expect(service.submitPullRequest(SUBMIT_CHANGE, SUBMIT)).rejects.toMatchObject({
    statusCode: 503,
    message: expect.stringContaining('submit it again') as unknown,
  });
});

test('a query that fails for another reason is asked again', async () => {
  const { service, queries } = stubGateway(undefined, [new Error('UNAVAILABLE'), { state: 'settled' }]);
  await service.submitPullRequest(SUBMIT_CHANGE, SUBMIT);
  expect(queries).toHaveLength(2);
});
