/**
 * A queue's metrics as charts: what is in the queue now, what left it in the last hour, and the wait,
 * test and time-in-queue durations of the last hour, from the same event-log read as
 * GET /v1/getMergeQueueMetrics (events/store/metrics-reads.ts), so both always agree.
 */
import type { FastifyInstance } from 'fastify';
import { readQueueMetrics } from '../../../events/store/metrics-reads';
import { notFound } from '../../errors';
import type { UiRouteDeps } from './deps';
import { jsonForScript, queueCharts } from './charts';
import { parse, QueueQuery, queueQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';

export function metricsPages(deps: UiRouteDeps) {
  return (app: FastifyInstance): void => {
    app.get('/ui/metrics', async (request, reply) => {
      const q = parse(QueueQuery, request.query, 'querystring');
      await requireOwned(deps, request, q.repo);
      const org = sessionOf(request).organisation;
      const all = await readQueueMetrics(deps.pool, org.id, q.repo, deps.now());
      const metrics = all?.find((m) => m.queue.targetBranch === q.targetBranch);
      if (metrics === undefined)
        throw notFound(`No merge queue metrics exist for branch "${q.targetBranch}" of this repository yet.`);
      return render(deps, request, reply, 'metrics', {
        title: `Metrics of ${q.repo.owner}/${q.repo.name} ${q.targetBranch}`,
        q,
        qs: queueQs(q),
        chartsJson: jsonForScript(queueCharts(metrics.byType)),
      });
    });
  };
}
