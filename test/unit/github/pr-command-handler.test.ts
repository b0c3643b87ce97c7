/**
 * createPrCommandHandler (github/inbound/pr-command-handler.ts) with the queue client over a recording
 * Temporal client, and a recording GitHub REST client: which queue a command reaches (the PR's base, the organisation's
 * running queue under the first spelling that has one), who may command it (write or admin), what is
 * replied when nothing is applied, the update ids derived from the comment, and the reactions.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { RoutedComment } from '../../../github/inbound/hint-routing';
import {
  commandUpdateId,
  createPrCommandHandler,
  type CommandTarget,
} from '../../../github/inbound/pr-command-handler';
import { ACCEPTED_COMMANDS, parseComment } from '../../../github/inbound/pr-commands';
import { GitHubApiError, type GitHubRest } from '../../../github/app/rest-client';
import {
  cancelUpdate,
  getAdmissionsQuery,
  getQueueQuery,
  queueWorkflowId,
  submitUpdate,
  type AdmissionState,
  type RepositoryKey,
} from '../../../contract';
import { createQueueClient, createTemporalCalls } from '../../../queue-client';
import type { ProjectedQueues } from '../../../github/store/projected-queue';

/** The real queue client over a recording Temporal client. */
const queuesOver = (client: object) =>
  createQueueClient(createTemporalCalls(client as never, { namespace: 'default', callTimeoutMs: 10_000 }));

const ORG = 'b9f2c1f0-1111-4c4c-8888-000000000001';
const GITHUB_SPELLING: RepositoryKey = { host: 'github.com', owner: 'Acme', name: 'Widgets' };
const LOWER: RepositoryKey = { host: 'github.com', owner: 'acme', name: 'widgets' };
const target: CommandTarget = {
  organisationId: ORG,
  installationId: 31,
  repository: { owner: 'Acme', name: 'Widgets' },
  spellings: [GITHUB_SPELLING, LOWER, LOWER],
};
const idOf = (repo: RepositoryKey, branch = 'main') =>
  queueWorkflowId({ organisationId: ORG, repo, targetBranch: branch });

/** When the comment was written, and the PR's head then. */
const COMMENTED_AT = '2024-05-01T12:00:10Z';
const HEAD = 'a'.repeat(40);

function routed(body: string, over: Partial<RoutedComment> = {}): RoutedComment {
  const parse = parseComment(body);
  if (parse.kind === 'none') throw new Error('not a command');
  return { id: 9001, pr: 12, author: 'alice', createdAt: COMMENTED_AT, parse, ...over };
}

interface QueueFake {
  status?: string;
  commandsEnabled?: boolean;
  submitError?: Error;
  cancelError?: Error;
  /** The queue's getQueue query fails (finding the queue, before any update). */
  queryError?: Error;
  admission?: AdmissionState;
  resubmitted?: boolean;
}

function setup(
  opts: {
    queues?: Record<string, QueueFake>;
    permission?: { permission: string; role_name: string } | 404;
    base?: string | 404;
    /** The PR's `updated_at` (default: the comment's own time, as GitHub sets it for a new comment). */
    updatedAt?: string;
    replyFails?: boolean;
    /** The admission bound (default 30 ms: most stories answer at once). */
    admissionTimeoutMs?: number;
    reactionFails?: boolean;
    /** The read projection's view (absent: the handler has none). */
    projected?: ProjectedQueues;
  } = {},
) {
  const queues = opts.queues ?? { [idOf(GITHUB_SPELLING)]: {} };
  const calls: string[] = [];
  const updates: { workflowId: string; name: string; updateId: string; args: unknown[] }[] = [];
  const requests: { route: string; params: Record<string, unknown> }[] = [];
  const errors: string[] = [];
  /** Each Temporal call's deadline, as milliseconds from when it was set. */
  const deadlines: number[] = [];
  const handleOf = (workflowId: string) => {
    const fake = queues[workflowId];
    const missing = () => new WorkflowNotFoundError('not found', workflowId, undefined);
    return {
      workflowId,
      describe() {
        calls.push(`describe ${workflowId}`);
        if (!fake) return Promise.reject(missing());
        return Promise.resolve({ status: { name: fake.status ?? 'RUNNING' } });
      },
      query(def: { name: string }, ...args: unknown[]) {
        calls.push(`query ${def.name}`);
        if (!fake) return Promise.reject(missing());
        if (fake.queryError && def.name === getQueueQuery.name) return Promise.reject(fake.queryError);
        if (def.name === getQueueQuery.name)
          return Promise.resolve({ settings: { commandsEnabled: fake.commandsEnabled ?? true } });
        if (def.name === getAdmissionsQuery.name) {
          const [ids] = args as [string[]];
          return Promise.resolve({ [ids[0]!]: fake.admission ?? { state: 'settled' } });
        }
        return Promise.reject(new Error(`unexpected query ${def.name}`));
      },
      executeUpdate(def: { name: string }, options: { updateId: string; args?: unknown[] }) {
        updates.push({ workflowId, name: def.name, updateId: options.updateId, args: options.args ?? [] });
        if (def.name === submitUpdate.name) {
          if (fake?.submitError) return Promise.reject(fake.submitError);
          return Promise.resolve({ submissionId: 'sub-1', resubmitted: fake?.resubmitted ?? false });
        }
        if (fake?.cancelError) return Promise.reject(fake.cancelError);
        return Promise.resolve(undefined);
      },
    };
  };
  const client = {
    workflow: { getHandle: handleOf },
    connection: {
      withDeadline: <T>(deadline: number, fn: () => Promise<T>) => {
        deadlines.push(deadline - Date.now());
        return fn();
      },
    },
  };
  const fail = (status: number) => new GitHubApiError(`GitHub answered ${status}`, status, null);
  const rest: GitHubRest = {
    installationId: 31,
    request<T>(route: string, params: Record<string, unknown> = {}) {
      requests.push({ route, params });
      const ok = (data: unknown) => Promise.resolve({ status: 200, data: data as T, headers: {} });
      if (route.startsWith('GET /repos/{owner}/{repo}/pulls/'))
        return opts.base === 404
          ? Promise.reject(fail(404))
          : ok({
              base: { ref: opts.base ?? 'main' },
              head: { sha: HEAD },
              updated_at: opts.updatedAt ?? COMMENTED_AT,
            });
      if (route.startsWith('GET /repos/{owner}/{repo}/collaborators/'))
        return opts.permission === 404
          ? Promise.reject(fail(404))
          : ok(opts.permission ?? { permission: 'write', role_name: 'write', user: null });
      if (route.startsWith('POST /repos/{owner}/{repo}/issues/{issue_number}/comments'))
        return opts.replyFails ? Promise.reject(fail(403)) : ok({});
      if (route.startsWith('POST /repos/{owner}/{repo}/issues/comments/'))
        return opts.reactionFails ? Promise.reject(fail(500)) : ok({});
      return Promise.reject(new Error(`unexpected ${route}`));
    },
  };
  const installationsAsked: number[] = [];
  const handler = createPrCommandHandler({
    queues: queuesOver(client),
    clients: {
      forInstallation: (id) => {
        installationsAsked.push(id);
        return Promise.resolve(rest);
      },
    },
    admissionTimeoutMs: opts.admissionTimeoutMs ?? 30,
    ...(opts.projected ? { projected: opts.projected } : {}),
    onError: (_err, message) => errors.push(message),
  });
  const replies = () =>
    requests
      .filter((r) => r.route.startsWith('POST /repos/{owner}/{repo}/issues/{issue_number}/comments'))
      .map((r) => r.params.body as string);
  const reactions = () =>
    requests
      .filter((r) => r.route.startsWith('POST /repos/{owner}/{repo}/issues/comments/'))
      .map((r) => `${String(r.params.comment_id)} ${String(r.params.content)}`);
  return { handler, updates, requests, replies, reactions, errors, calls, installationsAsked, deadlines };
}

describe('merge', () => {
  test('a write collaborator submits the PR under an update id of the comment; +1, no reply', async () => {
    const t = setup();
    expect(await t.handler.run(target, routed('/trunk merge --priority=high --no-batch'))).toBe(
      'submitted #12 to main',
    );
    expect(t.installationsAsked).toEqual([31]);
    expect(t.updates).toEqual([
      {
        workflowId: idOf(GITHUB_SPELLING),
        name: 'submitPullRequest',
        updateId: 'issueComment/9001/merge',
        args: [{ pr: 12, priority: 10, noBatch: true, expectedHeadSha: HEAD }],
      },
    ]);
    expect(t.reactions()).toEqual(['9001 +1']);
    expect(t.replies()).toEqual([]);
    // The PR and the permission were read under GitHub's spelling of the repository.
    expect(t.requests.slice(0, 2)).toEqual([
      {
        route: 'GET /repos/{owner}/{repo}/pulls/{pull_number}',
        params: { owner: 'Acme', repo: 'Widgets', pull_number: 12 },
      },
      {
        route: 'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
        params: { owner: 'Acme', repo: 'Widgets', username: 'alice' },
      },
    ]);
  });

  test('a plain merge sends the queue default (null) and batching', async () => {
    const t = setup();
    await t.handler.run(target, routed('/railyard merge'));
    expect(t.updates[0]!.args).toEqual([{ pr: 12, priority: null, noBatch: false, expectedHeadSha: HEAD }]);
  });

  test('a PR updated after the comment (a push, say) is refused: a new command is needed', async () => {
    const t = setup({ updatedAt: '2024-05-01T12:00:11Z' });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'refused: the pull request changed after the comment (replied)',
    );
    expect(t.updates).toEqual([]);
    expect(t.reactions()).toEqual([]);
    expect(t.replies()).toEqual([
      `\`/trunk merge\` was not applied: the pull request changed after that comment (a push, an edit or another comment), and railyard queues only the commit a command was given for. Its head is now ${HEAD}; comment \`/trunk merge\` again to queue it.`,
    ]);
    // A cancel is not bound to a head: it applies whatever happened since.
    expect(await t.handler.run(target, routed('/trunk cancel'))).toBe('cancelled #12 in main');
  });

  test('the queue’s words in a reply are inert: no mention, reference, link or markup', async () => {
    const t = setup({
      queues: {
        [idOf(GITHUB_SPELLING)]: {
          admission: {
            state: 'rejected',
            rejection: 'invalid',
            message: 'Branch @acme/admins #3 ![x](https://evil.example/a.png) <b>',
          },
        },
      },
    });
    await t.handler.run(target, routed('/trunk merge'));
    const [reply] = t.replies();
    expect(reply).not.toMatch(/@[A-Za-z]|#[0-9]|!\[|\]\(|<b>|https:\/\//);
    expect(reply!.replace(/[\u200d\\]/g, '')).toBe(
      '`/trunk merge` was not applied: Branch @acme/admins #3 ![x](https://evil.example/a.png) <b>',
    );
  });

  test('a resubmission says so', async () => {
    const t = setup({ queues: { [idOf(GITHUB_SPELLING)]: { resubmitted: true } } });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('resubmitted #12 to main');
  });

  test('admins and maintainers (GitHub reports maintain as write) may command', async () => {
    for (const permission of [
      { permission: 'admin', role_name: 'admin' },
      { permission: 'write', role_name: 'maintain' },
      { permission: 'write', role_name: 'release-manager' },
    ]) {
      const t = setup({ permission });
      expect(await t.handler.run(target, routed('/trunk merge'))).toBe('submitted #12 to main');
    }
  });

  test('the admission is rejected: a reply with the queue’s sentence, no reaction', async () => {
    const t = setup({
      queues: {
        [idOf(GITHUB_SPELLING)]: {
          admission: { state: 'rejected', rejection: 'invalid', message: 'Pull request #12 is closed.' },
        },
      },
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('rejected by the queue (replied)');
    // The queue's words are inert: its `#12` is no reference (a zero-width joiner, an escape).
    expect(t.replies()).toEqual(['`/trunk merge` was not applied: Pull request \\#\u200d12 is closed.']);
    expect(t.reactions()).toEqual([]);
  });

  test('an admission still pending at the bound is acknowledged with eyes', async () => {
    // A bound of many poll ticks (the first is 20 ms): with 30 ms a loaded machine fits one question.
    const t = setup({
      queues: { [idOf(GITHUB_SPELLING)]: { admission: { state: 'pending' } } },
      admissionTimeoutMs: 600,
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'submitted #12 to main, admission pending',
    );
    expect(t.reactions()).toEqual(['9001 eyes']);
    // It asked more than once before giving up.
    expect(t.calls.filter((c) => c === `query ${getAdmissionsQuery.name}`).length).toBeGreaterThan(1);
  });
});

describe('cancel', () => {
  test('cancels under an update id of the comment; +1', async () => {
    const t = setup();
    expect(await t.handler.run(target, routed('/trunk cancel'))).toBe('cancelled #12 in main');
    expect(t.updates).toEqual([
      {
        workflowId: idOf(GITHUB_SPELLING),
        name: cancelUpdate.name,
        updateId: 'issueComment/9001/cancel',
        args: [{ pr: 12 }],
      },
    ]);
    expect(t.reactions()).toEqual(['9001 +1']);
  });

  test('a PR not in the queue: the queue’s rejection is the reply', async () => {
    const rejection = ApplicationFailure.create({
      type: 'not_found',
      message: 'Pull request #12 is not in the merge queue for github.com/Acme/Widgets branch "main".',
      nonRetryable: true,
    });
    const t = setup({
      queues: {
        [idOf(GITHUB_SPELLING)]: { cancelError: new WorkflowUpdateFailedError('failed', rejection) },
      },
    });
    expect(await t.handler.run(target, routed('/trunk cancel'))).toBe('rejected by the queue (replied)');
    expect(t.replies()).toEqual([
      '`/trunk cancel` was not applied: Pull request \\#\u200d12 is not in the merge queue for github.com/Acme/Widgets branch "main".',
    ]);
    expect(t.reactions()).toEqual([]);
  });
});

describe('which queue', () => {
  test('the queue of the PR’s base branch, under the first spelling with a running queue', async () => {
    const t = setup({
      base: 'release/2.x',
      queues: {
        [idOf(GITHUB_SPELLING, 'release/2.x')]: { status: 'COMPLETED' },
        [idOf(LOWER, 'release/2.x')]: {},
      },
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('submitted #12 to release/2.x');
    expect(t.updates.map((u) => u.workflowId)).toEqual([idOf(LOWER, 'release/2.x')]);
    // The duplicate spelling was asked once.
    expect(t.calls.filter((c) => c.startsWith('describe'))).toEqual([
      `describe ${idOf(GITHUB_SPELLING, 'release/2.x')}`,
      `describe ${idOf(LOWER, 'release/2.x')}`,
    ]);
  });

  test('no running queue of the base branch (none, another branch’s, a deleted one): a reply, nothing else', async () => {
    for (const queues of [
      {},
      { [idOf(GITHUB_SPELLING, 'develop')]: {} },
      { [idOf(GITHUB_SPELLING)]: { status: 'COMPLETED' } },
    ]) {
      const t = setup({ queues });
      expect(await t.handler.run(target, routed('/trunk merge'))).toBe('no merge queue for main (replied)');
      expect(t.replies()).toEqual([
        'railyard has no merge queue for `main` in Acme/Widgets, so `/trunk merge` did nothing.',
      ]);
      expect(t.updates).toEqual([]);
      expect(t.reactions()).toEqual([]);
      expect(t.requests.some((r) => r.route.includes('collaborators'))).toBe(false);
    }
  });

  test('a branch name cannot break out of the reply’s code span', async () => {
    const t = setup({ base: 'evil`@everyone', queues: {} });
    await t.handler.run(target, routed('/trunk merge'));
    expect(t.replies()).toEqual([
      "railyard has no merge queue for `evil'@everyone` in Acme/Widgets, so `/trunk merge` did nothing.",
    ]);
  });

  test('commands off for the queue: silence (no permission read, reply or reaction)', async () => {
    const t = setup({ queues: { [idOf(GITHUB_SPELLING)]: { commandsEnabled: false } } });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'commands are off for the queue of main',
    );
    expect(t.requests.map((r) => r.route)).toEqual(['GET /repos/{owner}/{repo}/pulls/{pull_number}']);
    expect(t.updates).toEqual([]);
  });

  test('a PR GitHub does not know: a failure, nothing else', async () => {
    const t = setup({ base: 404 });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('failed: pull request not found');
    expect(t.updates).toEqual([]);
    expect(t.replies()).toEqual([]);
  });

  test('the queue deleted between the read and the update: the no-queue reply', async () => {
    const gone = new WorkflowNotFoundError('gone', idOf(GITHUB_SPELLING), undefined);
    const t = setup({ queues: { [idOf(GITHUB_SPELLING)]: { submitError: gone } } });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('no merge queue for main (replied)');
  });
});

describe('who may command', () => {
  test.each([
    [{ permission: 'read', role_name: 'read' }, 'refused: bob has read access (replied)', 'read access'],
    [
      { permission: 'read', role_name: 'triage' },
      'refused: bob has triage access (replied)',
      'triage access',
    ],
    [{ permission: 'none', role_name: 'none' }, 'refused: bob has no access (replied)', 'no access'],
    [404 as const, 'refused: bob has no access (replied)', 'no access'],
  ])('%j is refused with a reply; nothing is submitted', async (permission, outcome, reported) => {
    const t = setup({ permission });
    expect(await t.handler.run(target, routed('/trunk merge', { author: 'bob' }))).toBe(outcome);
    expect(t.replies()).toEqual([
      `@bob cannot command the merge queue: that needs write access to Acme/Widgets, and GitHub reports ${reported}.`,
    ]);
    expect(t.updates).toEqual([]);
    expect(t.reactions()).toEqual([]);
  });

  test('an invalid command from a write collaborator: a reply with what is accepted', async () => {
    const t = setup();
    expect(await t.handler.run(target, routed('/trunk merge --force'))).toBe('invalid command (replied)');
    expect(t.replies()).toEqual([
      `\`/trunk merge --force\` was not applied: \`--force\` is not a flag of \`merge\`; railyard accepts ${ACCEPTED_COMMANDS}.`,
    ]);
    expect(t.updates).toEqual([]);
  });

  test('refusals are bounded: one reply per PR and kind, one for all commenters without access', async () => {
    const t = setup({ permission: { permission: 'read', role_name: 'read' } });
    expect(await t.handler.run(target, routed('/trunk merge', { author: 'bob' }))).toBe(
      'refused: bob has read access (replied)',
    );
    for (const author of ['bob', 'carol', 'dave'])
      expect(await t.handler.run(target, routed('/trunk merge', { author }))).toBe(
        `refused: ${author} has read access (reply withheld)`,
      );
    // Another PR gets its own reply.
    expect(await t.handler.run(target, routed('/trunk merge', { author: 'bob', pr: 13 }))).toBe(
      'refused: bob has read access (replied)',
    );
    expect(t.replies()).toHaveLength(2);
  });

  test('an invalid command from a reader is refused for the permission first', async () => {
    const t = setup({ permission: { permission: 'read', role_name: 'read' } });
    expect(await t.handler.run(target, routed('/trunk merge --force', { author: 'bob' }))).toBe(
      'refused: bob has read access (replied)',
    );
  });
});

describe('failures', () => {
  test('a queue that does not answer the update: one sentence that does not claim it was not applied, reported', async () => {
    // The server may still apply an update it admitted after the caller's deadline (issue 27).
    const t = setup({ queues: { [idOf(GITHUB_SPELLING)]: { submitError: new Error('deadline exceeded') } } });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'failed: the queue did not answer (replied)',
    );
    expect(t.replies()).toEqual([
      'railyard could not reach the merge queue of `main` just now, so `/trunk merge` may not have been applied; if the pull request does not show it within a few minutes, comment it again.',
    ]);
    expect(t.errors).toEqual([`could not apply merge of comment 9001 to ${idOf(GITHUB_SPELLING)}`]);
  });

  test('finding the queue fails (QueueClientError): the same reply, nothing submitted, reported', async () => {
    // Seen on a loaded stack with replicas (docs/known-issues.md): the delivery recorded
    // "failed: QueueClientError" and no reply was posted, because only the updates' errors were caught.
    const t = setup({
      queues: { [idOf(GITHUB_SPELLING)]: { queryError: new Error('deadline exceeded') } },
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'failed: the queue did not answer (replied)',
    );
    expect(t.replies()).toEqual([
      'railyard could not reach the merge queue of `main` just now, so `/trunk merge` was not applied; comment it again in a minute.',
    ]);
    expect(t.updates).toEqual([]);
    expect(t.errors).toEqual(['could not find the queue of main for comment 9001']);
  });

  test('the update waits out the task of a killed worker and its replay (30 s), not the call timeout (issue 27)', async () => {
    for (const command of ['/trunk merge', '/trunk cancel']) {
      const t = setup();
      await t.handler.run(target, routed(command));
      // The lookup's deadline first, then the update's.
      expect(t.updates).toHaveLength(1);
      expect(t.deadlines[1]).toBeGreaterThan(29_000);
      expect(t.deadlines[1]).toBeLessThanOrEqual(30_000);
    }
  });

  test('the lookup waits longer than one workflow task (15 s), not the 10 s call timeout (issue 27)', async () => {
    const t = setup();
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('submitted #12 to main');
    // The first call is the lookup (describe, then the getQueue query): past a workflow task's 10 s.
    expect(t.deadlines[0]).toBeGreaterThan(14_000);
    expect(t.deadlines[0]).toBeLessThanOrEqual(15_000);
  });

  test('a queue that does not answer the lookup in time is taken from the projection: submitted (issue 27)', async () => {
    const asked: string[] = [];
    const t = setup({
      queues: { [idOf(GITHUB_SPELLING)]: { queryError: new Error('deadline exceeded') } },
      projected: (key, pr) => {
        asked.push(`${queueWorkflowId(key)} #${pr}`);
        return Promise.resolve({
          kind: 'found',
          settings: { commandsEnabled: true } as never,
          queuedAt: null,
        });
      },
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe('submitted #12 to main');
    expect(asked).toEqual([`${idOf(GITHUB_SPELLING)} #12`]);
    expect(t.updates.map((u) => `${u.workflowId} ${u.name}`)).toEqual([
      `${idOf(GITHUB_SPELLING)} ${submitUpdate.name}`,
    ]);
    expect(t.errors).toEqual([]);
  });

  test('the projection is asked only when the workflow does not answer, and its absence is the failure', async () => {
    const asked: string[] = [];
    const projected: ProjectedQueues = (key) => {
      asked.push(queueWorkflowId(key));
      return Promise.resolve({ kind: 'absent' });
    };
    // The workflow answers: its settings rule (commands off), the projection is not read.
    const off = setup({ queues: { [idOf(GITHUB_SPELLING)]: { commandsEnabled: false } }, projected });
    expect(await off.handler.run(target, routed('/trunk merge'))).toBe(
      'commands are off for the queue of main',
    );
    expect(asked).toEqual([]);
    // It does not, and the projection holds no view either: the unreachable reply, as before.
    const t = setup({
      queues: { [idOf(GITHUB_SPELLING)]: { queryError: new Error('deadline exceeded') } },
      projected,
    });
    expect(await t.handler.run(target, routed('/trunk merge'))).toBe(
      'failed: the queue did not answer (replied)',
    );
    expect(asked).toEqual([idOf(GITHUB_SPELLING)]);
    expect(t.updates).toEqual([]);
  });

  test('a reply or a reaction GitHub refuses is noted in the outcome and reported, never thrown', async () => {
    const noReply = setup({ permission: { permission: 'read', role_name: 'read' }, replyFails: true });
    expect(await noReply.handler.run(target, routed('/trunk merge'))).toBe(
      'refused: alice has read access (reply failed)',
    );
    expect(noReply.errors).toEqual(['could not reply to comment 9001 on Acme/Widgets#12']);
    const noReaction = setup({ reactionFails: true });
    expect(await noReaction.handler.run(target, routed('/trunk merge'))).toBe(
      'submitted #12 to main (reaction failed)',
    );
  });

  test('GitHub failing the PR read is thrown (the delivery records the failure)', async () => {
    const handler = createPrCommandHandler({
      queues: queuesOver({
        workflow: { getHandle: () => ({}) },
        connection: { withDeadline: () => Promise.reject(new Error('x')) },
      }),
      clients: {
        forInstallation: () =>
          Promise.resolve({
            installationId: 31,
            request: () => Promise.reject(new GitHubApiError('GitHub answered 502', 502, null)),
          }),
      },
      onError: () => undefined,
    });
    await expect(handler.run(target, routed('/trunk merge'))).rejects.toBeInstanceOf(GitHubApiError);
  });
});

test('commandUpdateId', () => {
  expect(commandUpdateId(42, { kind: 'cancel' })).toBe('issueComment/42/cancel');
  expect(commandUpdateId(42, { kind: 'merge', priority: null, noBatch: false })).toBe(
    'issueComment/42/merge',
  );
});
