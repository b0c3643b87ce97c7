/** Check runs and commit statuses become the queue's reports the way GitHub's protection reads them. */
import { reportsOf, type CheckRunWire } from '../../../github/host/checks';

const SHA = 'a'.repeat(40);
const run = (id: number, name: string, status: string, conclusion: string | null): CheckRunWire => ({
  id,
  name,
  status,
  conclusion,
  details_url: `https://ci.example.com/${id}`,
});

test.each([
  ['success', 'success'],
  ['neutral', 'success'],
  ['skipped', 'success'],
  ['failure', 'failure'],
  ['cancelled', 'failure'],
  ['timed_out', 'failure'],
  ['action_required', 'failure'],
  ['stale', 'failure'],
  ['startup_failure', 'failure'],
])('a completed check run concluding %s reports %s', (conclusion, state) => {
  expect(reportsOf(SHA, [run(1, 'test', 'completed', conclusion)], [])).toEqual([
    { sha: SHA, context: 'test', state, url: 'https://ci.example.com/1', description: conclusion },
  ]);
});

test.each(['queued', 'in_progress', 'waiting', 'requested', 'pending'])(
  'a check run %s is pending',
  (status) => {
    expect(reportsOf(SHA, [run(1, 'test', status, null)], [])[0]?.state).toBe('pending');
  },
);

test('the newest run of a name counts (a re-run replaces a failure), and a check run beats a status', () => {
  const reports = reportsOf(
    SHA,
    [run(7, 'test', 'completed', 'success'), run(3, 'test', 'completed', 'failure')],
    [
      { context: 'test', state: 'failure' },
      { context: 'lint', state: 'success', target_url: null, description: 'ok' },
      { context: 'deploy', state: 'weird' },
    ],
  );
  const byContext = Object.fromEntries(reports.map((r) => [r.context, r.state]));
  expect(byContext).toEqual({ test: 'success', lint: 'success', deploy: 'pending' });
});
