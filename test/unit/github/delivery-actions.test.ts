/**
 * createDeliveryActions (github/inbound/delivery-actions.ts) with recording fakes: a routed
 * delivery hints only the organisation that holds the repository through the delivery's installation,
 * with the spellings a queue may use; each outcome says what happened (how many queues were hinted,
 * why nothing was), a failure is recorded and never thrown. A PR comment carrying a command goes to the
 * command handler for that same organisation, and its outcome is the row's.
 */
import { createDeliveryActions, hintOutcome } from '../../../github/inbound/delivery-actions';
import type { RoutedComment } from '../../../github/inbound/hint-routing';
import type { GitHubOwnerLookup } from '../../../github/store/owner-lookup';
import type { CommandTarget, PrCommandHandler } from '../../../github/inbound/pr-command-handler';
import type { HintResult, QueueHinter } from '../../../github/inbound/queue-hints';
import type { HostHint, RepositoryKey } from '../../../contract';

const SHA = 'c'.repeat(40);
const ORG = '5d8e0a8e-4a57-4b39-9d1f-0f9b8d7a1c11';

function setup(
  opts: {
    holder?: boolean;
    linked?: boolean;
    result?: Partial<HintResult>;
    hintError?: Error;
    commands?: boolean;
  } = {},
) {
  const hints: { organisationId: string; spellings: readonly RepositoryKey[]; hint: HostHint }[] = [];
  const handled: [string, string][] = [];
  const errors: string[] = [];
  const holderAsked: [number, { owner: string; name: string }][] = [];
  const owners: GitHubOwnerLookup = {
    holderOf(installationId, repo) {
      holderAsked.push([installationId, repo]);
      return Promise.resolve(
        opts.holder === false
          ? null
          : { organisationId: ORG, repository: { host: 'github.com', owner: 'acme', name: 'widgets' } },
      );
    },
    holdsQueues: () => Promise.reject(new Error('not used')),
  };
  const hinter: Pick<QueueHinter, 'hintRepository'> = {
    hintRepository(target, hint) {
      if (opts.hintError) return Promise.reject(opts.hintError);
      hints.push({ ...target, hint });
      return Promise.resolve({ hinted: 2, ended: 0, failed: 0, truncated: false, ...opts.result });
    },
  };
  const commanded: { target: CommandTarget; comment: RoutedComment }[] = [];
  const commands: PrCommandHandler = {
    run(target, comment) {
      commanded.push({ target, comment });
      return Promise.resolve('submitted #12 to main');
    },
  };
  const linked = opts.linked ?? true;
  const actions = createDeliveryActions({
    deliveries: {
      markHandled: (id, outcome) => {
        handled.push([id, outcome]);
        return Promise.resolve();
      },
    },
    installations: {
      find: () => Promise.resolve(linked ? ({} as never) : null),
      addRepositories: () => Promise.reject(new Error('not used')),
      removeRepositories: () => Promise.reject(new Error('not used')),
      setSuspended: () => Promise.resolve(linked),
      unlink: () => Promise.resolve(linked),
    },
    owners,
    hinter,
    ...(opts.commands === false ? {} : { commands }),
    onError: (_err, message) => errors.push(message),
  });
  return { actions, hints, handled, errors, holderAsked, commanded };
}

const prEvent = {
  action: 'synchronize',
  installation: { id: 9 },
  repository: { full_name: 'Acme/Widgets' },
  pull_request: { number: 5 },
};

test('a routed delivery hints the holding organisation, with every spelling a queue may use', async () => {
  const { actions, hints, handled, holderAsked } = setup();
  expect(await actions.handle('d1', 'pull_request', prEvent)).toBe('hinted 2 queues');
  expect(holderAsked).toEqual([[9, { owner: 'Acme', name: 'Widgets' }]]);
  expect(hints).toEqual([
    {
      organisationId: ORG,
      spellings: [
        { host: 'github.com', owner: 'Acme', name: 'Widgets' },
        { host: 'github.com', owner: 'acme', name: 'widgets' },
        { host: 'github.com', owner: 'acme', name: 'widgets' },
      ],
      hint: { kind: 'pull_request', pr: 5 },
    },
  ]);
  expect(handled).toEqual([['d1', 'hinted 2 queues']]);
});

test('push and checks deliveries carry their branch and sha', async () => {
  const { actions, hints } = setup({ result: { hinted: 1 } });
  const base = { installation: { id: 9 }, repository: { full_name: 'acme/widgets' } };
  expect(await actions.act('push', { ...base, ref: 'refs/heads/main' })).toBe('hinted 1 queue');
  expect(await actions.act('status', { ...base, sha: SHA })).toBe('hinted 1 queue');
  expect(hints.map((h) => h.hint)).toEqual([
    { kind: 'target', branch: 'main' },
    { kind: 'checks', sha: SHA },
  ]);
});

test('nobody holds the repository: not linked, or not covered by a linked installation; no hint', async () => {
  const notLinked = setup({ holder: false, linked: false });
  expect(await notLinked.actions.handle('d2', 'pull_request', prEvent)).toBe('installation not linked');
  expect(notLinked.hints).toEqual([]);
  const notCovered = setup({ holder: false, linked: true });
  expect(await notCovered.actions.handle('d3', 'pull_request', prEvent)).toBe(
    'repository not covered by the installation',
  );
  expect(notCovered.hints).toEqual([]);
});

test('unrouted events are not acted on; invalid payloads are failures; neither asks for a holder', async () => {
  const { actions, holderAsked, hints } = setup();
  expect(await actions.handle('d4', 'issue_comment', prEvent)).toBe('not acted on');
  expect(await actions.handle('d5', 'pull_request', { ...prEvent, action: 'labeled' })).toBe('not acted on');
  expect(await actions.handle('d6', 'check_run', { ...prEvent, check_run: {} })).toBe(
    'failed: payload lacks the check_run fields',
  );
  expect(holderAsked).toEqual([]);
  expect(hints).toEqual([]);
});

test('queues a signal could not reach make the outcome a failure naming the count', async () => {
  const { actions } = setup({ result: { hinted: 1, failed: 2 } });
  expect(await actions.handle('d7', 'pull_request', prEvent)).toBe('failed: hinted 1 of 3 queues');
});

test('an error while hinting is recorded as a failure and reported, never thrown', async () => {
  const { actions, handled, errors } = setup({ hintError: new TypeError('visibility down') });
  await expect(actions.handle('d8', 'pull_request', prEvent)).resolves.toBe('failed: TypeError');
  expect(handled).toEqual([['d8', 'failed: TypeError']]);
  expect(errors).toEqual(['could not act on GitHub delivery d8 (pull_request)']);
});

test('hintOutcome', () => {
  const r = { hinted: 0, ended: 0, failed: 0, truncated: false };
  expect(hintOutcome(r)).toBe('hinted 0 queues');
  expect(hintOutcome({ ...r, hinted: 1, ended: 3 })).toBe('hinted 1 queue');
  expect(hintOutcome({ ...r, hinted: 3, truncated: true })).toBe('hinted 3 queues (listing truncated)');
  expect(hintOutcome({ ...r, hinted: 0, failed: 1 })).toBe('failed: hinted 0 of 1 queue');
});

describe('commands in PR comments', () => {
  const commentEvent = (action = 'created') => ({
    action,
    installation: { id: 9 },
    repository: { full_name: 'Acme/Widgets' },
    issue: { number: 12, pull_request: {} },
    comment: {
      id: 77,
      body: '/trunk cancel',
      user: { login: 'alice', type: 'User' },
      created_at: '2024-05-01T12:00:10Z',
    },
  });

  test('a command goes to the handler for the holding organisation; its outcome is recorded', async () => {
    const { actions, commanded, handled, hints } = setup();
    expect(await actions.handle('c1', 'issue_comment', commentEvent())).toBe('submitted #12 to main');
    expect(commanded).toEqual([
      {
        target: {
          organisationId: ORG,
          installationId: 9,
          repository: { owner: 'Acme', name: 'Widgets' },
          spellings: [
            { host: 'github.com', owner: 'Acme', name: 'Widgets' },
            { host: 'github.com', owner: 'acme', name: 'widgets' },
            { host: 'github.com', owner: 'acme', name: 'widgets' },
          ],
        },
        comment: {
          id: 77,
          pr: 12,
          author: 'alice',
          createdAt: '2024-05-01T12:00:10Z',
          parse: { kind: 'command', command: { kind: 'cancel' }, text: '/trunk cancel', ignored: 0 },
        },
      },
    ]);
    expect(handled).toEqual([['c1', 'submitted #12 to main']]);
    expect(hints).toEqual([]);
  });

  test('edited and deleted comments never reach the handler', async () => {
    const { actions, commanded } = setup();
    expect(await actions.handle('c2', 'issue_comment', commentEvent('edited'))).toBe('not acted on');
    expect(await actions.handle('c3', 'issue_comment', commentEvent('deleted'))).toBe('not acted on');
    expect(commanded).toEqual([]);
  });

  test('nobody holds the repository: nothing reaches the handler', async () => {
    const notLinked = setup({ holder: false, linked: false });
    expect(await notLinked.actions.handle('c4', 'issue_comment', commentEvent())).toBe(
      'installation not linked',
    );
    const notCovered = setup({ holder: false });
    expect(await notCovered.actions.handle('c5', 'issue_comment', commentEvent())).toBe(
      'repository not covered by the installation',
    );
    expect([...notLinked.commanded, ...notCovered.commanded]).toEqual([]);
  });

  test('a process without a command handler records a failure', async () => {
    const { actions, handled } = setup({ commands: false });
    expect(await actions.handle('c6', 'issue_comment', commentEvent())).toBe(
      'failed: PR commands are not available here',
    );
    expect(handled).toEqual([['c6', 'failed: PR commands are not available here']]);
  });
});
