/**
 * Workflow ids (contract/ids.ts): a queue workflow id parses back to exactly the key it was built from,
 * whatever its parts hold (`/` in an owner or branch, `%`, quotes, spaces), and nothing else parses:
 * another kind of id, a part too many or too few, a broken escape, another encoding of the same key.
 * The id prefixes a listing selects by are prefixes of exactly the ids they stand for.
 */
import {
  parseQueueWorkflowId,
  prWorkflowId,
  prWorkflowIdPrefix,
  queueWorkflowId,
  queueWorkflowIdPrefix,
  testRunWorkflowId,
  type QueueKey,
} from '../../../contract';

const KEY: QueueKey = {
  organisationId: 'org-1',
  repo: { host: 'github.com', owner: 'acme', name: 'app' },
  targetBranch: 'main',
};

describe('parseQueueWorkflowId', () => {
  test.each<[string, QueueKey]>([
    ['a plain key', KEY],
    [
      'an owner with / (a GitLab subgroup), a port in the host, a dotted name',
      {
        organisationId: '5d8e0a8e-4a57-4b39-9d1f-0f9b8d7a1c11',
        repo: { host: 'gitlab.example.com:8443', owner: 'group/sub/team', name: 'a.b' },
        targetBranch: 'main',
      },
    ],
    [
      'a branch with /, %, quotes, a backslash and a space',
      { ...KEY, targetBranch: 'release/2026 %"x\\y\'s' },
    ],
    ['an owner that looks like an escape', { ...KEY, repo: { ...KEY.repo, owner: '%2F' } }],
    ['non-ASCII parts', { ...KEY, repo: { ...KEY.repo, owner: 'équipe', name: '应用' } }],
  ])('%s round-trips', (_name, key) => {
    const id = queueWorkflowId(key);
    expect(id.split('/')).toHaveLength(6);
    expect(parseQueueWorkflowId(id)).toEqual(key);
  });

  test("the owner's / is escaped, so it cannot shift the parts", () => {
    const slashed = queueWorkflowId({ ...KEY, repo: { host: 'h', owner: 'a/b', name: 'c' } });
    const shifted = queueWorkflowId({ ...KEY, repo: { host: 'h', owner: 'a', name: 'b/c' } });
    expect(slashed).toBe('queue/org-1/h/a%2Fb/c/main');
    expect(shifted).toBe('queue/org-1/h/a/b%2Fc/main');
    expect(parseQueueWorkflowId(slashed)?.repo).toEqual({ host: 'h', owner: 'a/b', name: 'c' });
    expect(parseQueueWorkflowId(shifted)?.repo).toEqual({ host: 'h', owner: 'a', name: 'b/c' });
    // Unescaped, the same text has a part too many.
    expect(parseQueueWorkflowId('queue/org-1/h/a/b/c/main')).toBeNull();
  });

  test('anything that is not exactly a queue workflow id is refused', () => {
    const id = queueWorkflowId(KEY);
    for (const other of [
      id.replace(/^queue\//, 'pr/'),
      prWorkflowId(KEY, 1),
      testRunWorkflowId(KEY, 'r1'),
      `${id}/1`,
      `${id}/`,
      id.split('/').slice(0, 5).join('/'),
      'queue/org/github.com/acme/app/ma%zz',
      // Another encoding of the same key is not an id the contract builds.
      'queue/org/github.com/acme/app/%6Dain',
      'Queue/org-1/github.com/acme/app/main',
      '',
    ])
      expect(parseQueueWorkflowId(other)).toBeNull();
  });
});

test('the id prefixes select exactly the ids of their organisation or queue', () => {
  const other: QueueKey = { ...KEY, targetBranch: 'main-2' };
  expect(queueWorkflowId(KEY).startsWith(queueWorkflowIdPrefix('org-1'))).toBe(true);
  // An organisation id that starts another's is not its prefix.
  expect(
    queueWorkflowId({ ...KEY, organisationId: 'org-10' }).startsWith(queueWorkflowIdPrefix('org-1')),
  ).toBe(false);
  expect(prWorkflowId(KEY, 7).startsWith(prWorkflowIdPrefix(KEY))).toBe(true);
  // A branch whose name starts another's: its PRs are not under the other queue's prefix.
  expect(prWorkflowId(other, 7).startsWith(prWorkflowIdPrefix(KEY))).toBe(false);
  expect(prWorkflowIdPrefix({ ...KEY, targetBranch: 'a/b' })).toBe('pr/org-1/github.com/acme/app/a%2Fb/');
});
