/**
 * The queue page says when a run's required checks have not started (issue 28): drawRuns carries the
 * sentence of getTestRunsInProgress's stalledChecks, the page shows it, escaped, under the run.
 */
import path from 'node:path';
import { Eta } from 'eta';
import { TEMPLATE_WORDS } from '../../../api/dashboard/routes/forms';
import { drawRuns } from '../../../api/dashboard/routes/run-groups';
import type { TestRunsInProgress } from '../../../api/schemas/merge-queue';

const eta = new Eta({
  views: path.join(__dirname, '..', '..', '..', 'api', 'dashboard', 'templates'),
  autoEscape: true,
});

const run = (stalled: boolean): TestRunsInProgress['testRuns'][number] => ({
  testRunId: 'run-1',
  requiredStatuses: ['test'],
  testBranch: 'trunk-merge/pr-7/run-1',
  testBranchSha: 'a'.repeat(40),
  createdAt: '2026-11-27T12:00:00.000Z',
  status: 'in_progress',
  checkSuites: [],
  statusChecks: [],
  testedPullRequests: [{ prNumber: 7, title: 't' }],
  ...(stalled
    ? {
        stalledChecks: {
          checks: ['<test>'],
          cause: 'nothing_reported' as const,
          since: '2026-11-27T12:05:00.000Z',
          graceMinutes: 5,
          text: 'Required check `<test>` has not started 5 minutes after the test branch was pushed.',
        },
      }
    : {}),
});

function page(runs: ReturnType<typeof drawRuns>): string {
  const view = { state: 'running', mode: 'single', concurrency: 1, enqueuedPullRequests: [] };
  return eta.render('queue', {
    data: { view, runs, recent: [] },
    q: { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' },
    w: TEMPLATE_WORDS,
    time: (s: string) => s,
  });
}

test('a stalled run shows the sentence, escaped; a run without a stall shows none', () => {
  const stalled = drawRuns('main', [run(true)], new Set());
  expect(stalled[0]?.stalled).toMatch(/^Required check/);
  const html = page(stalled);
  expect(html).toContain('data-testid="stalled-checks"');
  expect(html).toContain('Required check `&lt;test&gt;` has not started');
  expect(page(drawRuns('main', [run(false)], new Set()))).not.toContain('stalled-checks');
});
