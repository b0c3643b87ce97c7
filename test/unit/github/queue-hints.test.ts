/**
 * The pure parts of the queue hinter and the delivery log client: a queue workflow id parses back to
 * exactly the key the contract built it from (and nothing else parses), and only the `cursor` of a
 * `rel="next"` link is taken from GitHub's link header.
 */
import { nextCursor } from '../../../github/app/hook-deliveries-api';
import { parseQueueWorkflowId } from '../../../github/inbound/queue-hints';
import { queueWorkflowId, type QueueKey } from '../../../contract';

test('queue workflow ids parse back to their key, with / and % inside components', () => {
  const keys: QueueKey[] = [
    {
      organisationId: 'org-1',
      repo: { host: 'github.com', owner: 'acme', name: 'app' },
      targetBranch: 'main',
    },
    {
      organisationId: '5d8e0a8e-4a57-4b39-9d1f-0f9b8d7a1c11',
      repo: { host: 'gitlab.example.com:8443', owner: 'group/sub', name: 'a.b' },
      targetBranch: 'release/2026 %"x',
    },
  ];
  for (const key of keys) expect(parseQueueWorkflowId(queueWorkflowId(key))).toEqual(key);
});

test('anything that is not exactly a queue workflow id is refused', () => {
  const id = queueWorkflowId({
    organisationId: 'org',
    repo: { host: 'github.com', owner: 'acme', name: 'app' },
    targetBranch: 'main',
  });
  for (const other of [
    id.replace(/^queue\//, 'pr/'),
    `${id}/1`,
    id.split('/').slice(0, 5).join('/'),
    'queue/org/github.com/acme/app/ma%zz',
    // Another encoding of the same key is not an id the contract builds.
    'queue/org/github.com/acme/app/%6Dain',
    '',
  ])
    expect(parseQueueWorkflowId(other)).toBeNull();
});

test('nextCursor takes only the cursor of rel="next"', () => {
  expect(
    nextCursor(
      '<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_123>; rel="next", <https://api.github.com/app/hook/deliveries?per_page=100>; rel="first"',
    ),
  ).toBe('v1_123');
  expect(nextCursor('<https://api.github.com/app/hook/deliveries?per_page=2>; rel="first"')).toBeNull();
  expect(nextCursor(undefined)).toBeNull();
  expect(nextCursor('<https://evil.example/x?cursor=a%20b>; rel="next"')).toBeNull();
  expect(nextCursor('<::not a url>; rel="next"')).toBeNull();
  expect(nextCursor(`<https://x/y?cursor=${'a'.repeat(501)}>; rel="next"`)).toBeNull();
});
