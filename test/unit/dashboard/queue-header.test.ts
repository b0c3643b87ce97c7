/**
 * The queue page's header says how the queue batches: a fixed queue its minimum size and wait, an
 * adaptive one (railyard's batchingMode extension) the largest batch, the cost it keeps within and,
 * when getQueue shows it, the plan it schedules by now.
 */
import path from 'node:path';
import { Eta } from 'eta';
import { TEMPLATE_WORDS } from '../../../api/dashboard/routes/forms';

const eta = new Eta({
  views: path.join(__dirname, '..', '..', '..', 'api', 'dashboard', 'templates'),
  autoEscape: true,
});

/** Renders only the header line: the template's first paragraph with the settings, as text. */
function header(v: Record<string, unknown>): string {
  const view = { state: 'running', mode: 'single', concurrency: 4, enqueuedPullRequests: [], ...v };
  const html = eta.render('queue', {
    data: { view, runs: [], recent: [] },
    q: { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' },
    w: TEMPLATE_WORDS,
  });
  const line = /<p>State [\s\S]*?<\/p>/.exec(html)?.[0] ?? html;
  return line.replace(/<[^>]*>/g, '');
}

it.each([
  [{ batch: false }, 'State running · one line (single mode) · up to 4 runs at once'],
  [
    { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 },
    'State running · one line (single mode) · up to 4 runs at once · batching (at least 4 PRs or 5 min)',
  ],
  [
    { batch: true, batchingMode: 'adaptive', batchingMinSize: 8, batchingRunsPerPrTarget: 0.5 },
    'State running · one line (single mode) · up to 4 runs at once · adaptive batching (batches of up to 8 PRs, within 0.5 runs per merged PR)',
  ],
  [
    {
      batch: true,
      batchingMode: 'adaptive',
      batchingMinSize: 8,
      batchingRunsPerPrTarget: 0.5,
      adaptivePlan: { batchSize: 6, depth: 3, failureRate: 0.0512 },
    },
    'State running · one line (single mode) · up to 4 runs at once · adaptive batching (batches of up to 8 PRs, within 0.5 runs per merged PR; now batches of 6, 3 deep, for an estimated 5.1 % of PRs failing)',
  ],
])('%j → %s', (v, said) => {
  expect(header(v).replace(/\s+/g, ' ').trim()).toBe(said);
});
