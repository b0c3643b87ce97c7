/**
 * routeDelivery (github/inbound/hint-routing.ts): every routed event and action gives its hint for
 * the repository and installation of the payload; other events and actions are not routed; tags and
 * test branches are not target pushes; a routed payload without its fields, or with fields out of
 * bounds, is invalid (never thrown). A created PR comment by a person carrying a command is routed as a
 * command (edited and deleted comments, issue comments, bots' comments and plain comments are not).
 */
import { pushedTargetBranch, routeDelivery, type Routing } from '../../../github/inbound/hint-routing';
import { parseComment } from '../../../github/inbound/pr-commands';

const SHA = 'a'.repeat(40);
const SHA256 = 'b'.repeat(64);
const envelope = { installation: { id: 77 }, repository: { full_name: 'Acme/Widgets', id: 1 }, sender: {} };
const hintOf = (hint: object): Routing => ({
  kind: 'hint',
  installationId: 77,
  repository: { owner: 'Acme', name: 'Widgets' },
  hint: hint as never,
});

describe('pull_request and pull_request_review', () => {
  const pr = { number: 42, state: 'open', head: { sha: SHA } };

  test.each([
    'opened',
    'synchronize',
    'closed',
    'reopened',
    'edited',
    'ready_for_review',
    'converted_to_draft',
  ])('pull_request %s → a pull_request hint', (action) => {
    expect(routeDelivery('pull_request', { ...envelope, action, pull_request: pr })).toEqual(
      hintOf({ kind: 'pull_request', pr: 42 }),
    );
  });

  test.each(['labeled', 'unlabeled', 'assigned', 'review_requested', 'locked', 'auto_merge_enabled'])(
    'pull_request %s is not routed',
    (action) => {
      expect(routeDelivery('pull_request', { ...envelope, action, pull_request: pr })).toEqual({
        kind: 'not_routed',
      });
    },
  );

  test.each(['submitted', 'dismissed'])('pull_request_review %s → a pull_request hint', (action) => {
    expect(
      routeDelivery('pull_request_review', { ...envelope, action, review: { id: 1 }, pull_request: pr }),
    ).toEqual(hintOf({ kind: 'pull_request', pr: 42 }));
  });

  test('pull_request_review edited is not routed', () => {
    expect(routeDelivery('pull_request_review', { ...envelope, action: 'edited', pull_request: pr })).toEqual(
      { kind: 'not_routed' },
    );
  });

  test.each([
    ['no action', { ...envelope, pull_request: pr }],
    ['no pull_request', { ...envelope, action: 'opened' }],
    ['a PR number as a string', { ...envelope, action: 'opened', pull_request: { number: '42' } }],
    ['a negative PR number', { ...envelope, action: 'opened', pull_request: { number: -1 } }],
    ['a PR number past 32 bits', { ...envelope, action: 'opened', pull_request: { number: 2 ** 32 } }],
    ['no installation', { action: 'opened', repository: envelope.repository, pull_request: pr }],
    ['no repository', { action: 'opened', installation: { id: 77 }, pull_request: pr }],
    ['an installation id 0', { ...envelope, installation: { id: 0 }, action: 'opened', pull_request: pr }],
    [
      'a repository without owner',
      { ...envelope, repository: { full_name: 'widgets' }, action: 'opened', pull_request: pr },
    ],
    [
      'a repository with a third segment',
      { ...envelope, repository: { full_name: 'a/b/c' }, action: 'opened', pull_request: pr },
    ],
    [
      'a repository named ..',
      { ...envelope, repository: { full_name: 'acme/..' }, action: 'opened', pull_request: pr },
    ],
    [
      'a repository name with a space',
      { ...envelope, repository: { full_name: 'acme/my repo' }, action: 'opened', pull_request: pr },
    ],
    [
      'an owner of 101 characters',
      { ...envelope, repository: { full_name: `${'o'.repeat(101)}/r` }, action: 'opened', pull_request: pr },
    ],
    ['an action of 101 characters', { ...envelope, action: 'x'.repeat(101), pull_request: pr }],
  ])('pull_request with %s is invalid', (_what, payload) => {
    expect(routeDelivery('pull_request', payload)).toEqual({
      kind: 'invalid',
      reason: 'payload lacks the pull_request fields',
    });
  });

  test('payloads that are not objects are invalid, not thrown', () => {
    for (const payload of [null, 42, 'x', [], undefined])
      expect(routeDelivery('pull_request', payload).kind).toBe('invalid');
  });
});

describe('push', () => {
  const push = (ref: string, extra: object = {}) =>
    routeDelivery('push', { ...envelope, ref, before: SHA, after: SHA, ...extra });

  test('a push to a branch → a target hint for that branch', () => {
    expect(push('refs/heads/main')).toEqual(hintOf({ kind: 'target', branch: 'main' }));
    expect(push('refs/heads/release/2026.11')).toEqual(hintOf({ kind: 'target', branch: 'release/2026.11' }));
  });

  test('a deleted branch is a target hint too (the queue re-reads it)', () => {
    expect(push('refs/heads/main', { deleted: true })).toEqual(hintOf({ kind: 'target', branch: 'main' }));
  });

  test('tags, other refs and test branches are not routed', () => {
    for (const ref of [
      'refs/tags/v1.0',
      'refs/pull/1/head',
      'refs/notes/commits',
      'main',
      'refs/heads/railyard-merge/pr-1/run-1',
      'refs/heads/trunk-merge/pr-7/abc',
      'refs/heads/', // empty branch name
      'refs/heads/bad..name',
      'refs/heads/-x',
    ])
      expect(push(ref)).toEqual({ kind: 'not_routed' });
  });

  test('a branch merely containing a test prefix is a target', () => {
    expect(pushedTargetBranch('refs/heads/feature/railyard-merge/x')).toBe('feature/railyard-merge/x');
    expect(pushedTargetBranch('refs/heads/trunk-merge')).toBe('trunk-merge');
  });

  test('a push without a ref, or with one past 300 characters, is invalid', () => {
    expect(routeDelivery('push', { ...envelope })).toEqual({
      kind: 'invalid',
      reason: 'payload lacks the push fields',
    });
    expect(push(`refs/heads/${'b'.repeat(300)}`).kind).toBe('invalid');
    expect(push(`refs/heads/${'b'.repeat(256)}`)).toEqual({ kind: 'not_routed' });
  });
});

describe('check_run, check_suite and status', () => {
  test.each(['created', 'completed', 'rerequested', 'requested_action'])(
    'check_run %s → checks',
    (action) => {
      expect(
        routeDelivery('check_run', { ...envelope, action, check_run: { id: 1, head_sha: SHA, status: 'x' } }),
      ).toEqual(hintOf({ kind: 'checks', sha: SHA }));
    },
  );

  test.each(['completed', 'requested', 'rerequested'])('check_suite %s → checks', (action) => {
    expect(routeDelivery('check_suite', { ...envelope, action, check_suite: { head_sha: SHA256 } })).toEqual(
      hintOf({ kind: 'checks', sha: SHA256 }),
    );
  });

  test('status → checks of its sha', () => {
    expect(routeDelivery('status', { ...envelope, sha: SHA, state: 'success', context: 'ci' })).toEqual(
      hintOf({ kind: 'checks', sha: SHA }),
    );
  });

  test.each([
    ['check_run', { ...envelope, action: 'completed' }],
    ['check_run', { ...envelope, check_run: { head_sha: 'abc123' } }],
    ['check_run', { ...envelope, check_run: { head_sha: SHA.toUpperCase() } }],
    ['check_suite', { ...envelope, check_suite: {} }],
    ['check_suite', { ...envelope, check_suite: { head_sha: `${SHA}0` } }],
    ['status', { ...envelope, state: 'success' }],
    ['status', { ...envelope, sha: 42 }],
    ['status', { sha: SHA, repository: envelope.repository }],
  ])('%s without a full sha (or envelope) is invalid', (event, payload) => {
    expect(routeDelivery(event, payload)).toEqual({
      kind: 'invalid',
      reason: `payload lacks the ${event} fields`,
    });
  });
});

test('every other event is not routed, whatever its payload', () => {
  for (const event of [
    'ping',
    'installation',
    'installation_repositories',
    'issues',
    'pull_request_review_comment',
    'repository',
    'merge_group',
    'workflow_run',
    'create',
    'delete',
  ])
    expect(
      routeDelivery(event, { ...envelope, action: 'created', ref: 'refs/heads/main', sha: SHA }),
    ).toEqual({
      kind: 'not_routed',
    });
});

describe('issue_comment', () => {
  const comment = (over: object = {}) => ({
    id: 9001,
    body: 'LGTM\n/trunk merge --priority=high',
    user: { login: 'alice', type: 'User' },
    created_at: '2024-05-01T12:00:10Z',
    ...over,
  });
  const onPr = { number: 12, pull_request: { url: 'https://api.github.com/repos/Acme/Widgets/pulls/12' } };
  const event = (over: { action?: string; issue?: object; comment?: object } = {}) => ({
    ...envelope,
    action: 'created',
    issue: onPr,
    comment: comment(),
    ...over,
  });

  test('a created PR comment carrying a command → a command for the repository and installation', () => {
    expect(routeDelivery('issue_comment', event())).toEqual<Routing>({
      kind: 'command',
      installationId: 77,
      repository: { owner: 'Acme', name: 'Widgets' },
      comment: {
        id: 9001,
        pr: 12,
        author: 'alice',
        createdAt: '2024-05-01T12:00:10Z',
        parse: {
          kind: 'command',
          command: { kind: 'merge', priority: 10, noBatch: false },
          text: '/trunk merge --priority=high',
          ignored: 0,
        },
      },
    });
  });

  test('an invalid command is routed too (it gets a reply)', () => {
    const routed = routeDelivery(
      'issue_comment',
      event({ comment: comment({ body: '/trunk merge --force' }) }),
    );
    expect(routed).toMatchObject({
      kind: 'command',
      comment: { parse: parseComment('/trunk merge --force') },
    });
  });

  test.each(['edited', 'deleted', 'pinned'])('a comment %s never runs a command', (action) => {
    expect(routeDelivery('issue_comment', event({ action }))).toEqual({ kind: 'not_routed' });
  });

  test('comments on issues, by bots, by deleted users, or without a command are not routed', () => {
    for (const payload of [
      event({ issue: { number: 12 } }),
      event({ issue: { number: 12, pull_request: null } }),
      event({ comment: comment({ user: { login: 'railyard[bot]', type: 'Bot' } }) }),
      event({ comment: comment({ user: null }) }),
      event({ comment: comment({ body: 'looks good' }) }),
      event({ comment: comment({ body: '> /trunk merge' }) }),
      event({ comment: comment({ body: null }) }),
    ])
      expect(routeDelivery('issue_comment', payload)).toEqual({ kind: 'not_routed' });
  });

  test('a payload without the fields, or out of bounds, is invalid', () => {
    const invalid = { kind: 'invalid', reason: 'payload lacks the issue_comment fields' };
    for (const payload of [
      { ...envelope },
      event({ comment: undefined }),
      event({ issue: undefined }),
      event({ comment: comment({ id: 0 }) }),
      event({ comment: comment({ id: 2 ** 60 }) }),
      event({ comment: comment({ user: { login: '../etc', type: 'User' } }) }),
      event({ comment: comment({ user: { login: 'a'.repeat(121), type: 'User' } }) }),
      event({ issue: { number: -1, pull_request: {} } }),
      { ...event(), installation: undefined },
      { ...event(), repository: { full_name: 'no-slash' } },
    ])
      expect(routeDelivery('issue_comment', payload)).toEqual(invalid);
  });
});
