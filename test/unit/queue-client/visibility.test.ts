/**
 * Visibility queries (queue-client/visibility.ts): every value is quoted with `"` and `\` escaped, so a
 * branch, owner or organisation cannot end a string or add a clause; tenancy is the id prefix.
 */
import { quote, runningQueuesQuery, submissionsQuery } from '../../../queue-client';

const Q = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };

test.each([
  ['plain', 'main', '"main"'],
  ['a double quote', 'a"b', '"a\\"b"'],
  ['a backslash', 'a\\b', '"a\\\\b"'],
  ['a backslash before a quote', 'a\\"', '"a\\\\\\""'],
  [
    'single quotes and AND stay inside the string',
    "x' AND ExecutionStatus = 'Running",
    `"x' AND ExecutionStatus = 'Running"`,
  ],
])('quote: %s', (_name, value, quoted) => {
  expect(quote(value)).toBe(quoted);
});

test('submissions: the queue isolated by id prefix, every value quoted', () => {
  expect(submissionsQuery({ organisationId: 'org-1', ...Q, targetBranch: 'a"b\\c' }, 'merged')).toBe(
    [
      'WorkflowType = "pullRequestWorkflow"',
      'WorkflowId STARTS_WITH "pr/org-1/github.com/acme/app/a%22b%5Cc/"',
      'RailyardRepository = "github.com/acme/app"',
      'RailyardTargetBranch = "a\\"b\\\\c"',
      'RailyardPrState = "merged"',
    ].join(' AND '),
  );
  expect(submissionsQuery({ organisationId: 'org-1', ...Q })).not.toContain('RailyardPrState');
});

test('running queues of an organisation: its id prefix, the repository labels, the branch', () => {
  expect(
    runningQueuesQuery({
      organisationId: 'org/1',
      repositoryLabels: ['github.com/Acme/App', 'github.com/acme/a"pp'],
      targetBranch: 'rel\\1',
    }),
  ).toBe(
    [
      'WorkflowType = "queueWorkflow"',
      "ExecutionStatus = 'Running'",
      'WorkflowId STARTS_WITH "queue/org%2F1/"',
      'RailyardRepository IN ("github.com/Acme/App", "github.com/acme/a\\"pp")',
      'RailyardTargetBranch = "rel\\\\1"',
    ].join(' AND '),
  );
  expect(runningQueuesQuery({ organisationId: 'o', repositoryLabels: ['h/a/b'] })).not.toContain(
    'RailyardTargetBranch',
  );
});

test('running queues of a host', () => {
  expect(runningQueuesQuery({ host: 'git"hub.com' })).toBe(
    [
      'WorkflowType = "queueWorkflow"',
      "ExecutionStatus = 'Running'",
      'RailyardRepository STARTS_WITH "git\\"hub.com/"',
    ].join(' AND '),
  );
});
