/**
 * The queue page's header says how the queue batches: a fixed queue its minimum size and wait, an
 * adaptive one (railyard's batchingMode extension) the largest batch and the cost it keeps within.
 */
import path from 'node:path';
import { Eta } from 'eta';

const eta = new Eta({
  views: path.join(__dirname, '..', '..', '..', 'api', 'dashboard', 'templates'),
  autoEscape: true,
});

/** Renders only the header line: the template's first paragraph with the settings. */
function header(v: Record<string, unknown>): string {
  const view = { state: 'running', mode: 'single', concurrency: 4, enqueuedPullRequests: [], ...v };
  const html = eta.render('queue', {
    data: { view, runs: [], recent: [] },
    q: { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' },
  });
  return /· mode[^<]*/.exec(html)?.[0] ?? html;
}

it.each([
  [{ batch: false }, '· mode single · concurrency 4'],
  [
    { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 },
    '· mode single · concurrency 4 · batching (at least 4 PRs or 5 min)',
  ],
  [
    { batch: true, batchingMode: 'adaptive', batchingMinSize: 8, batchingRunsPerPrTarget: 0.5 },
    '· mode single · concurrency 4 · adaptive batching (batches of up to 8 PRs, within 0.5 runs per merged PR)',
  ],
])('%j → %s', (v, said) => {
  expect(header(v).replace(/\s+/g, ' ').trim()).toBe(said);
});
