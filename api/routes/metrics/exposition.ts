/**
 * Queue metrics (data from the event log) → Prometheus text, with Trunk's metric names, types, labels,
 * HELP strings and buckets (trunk-compat §6).
 *
 * Invariants:
 * - A fresh prom-client Registry per call: nothing is shared between requests or organisations, and
 *   nothing outlives the response.
 * - Every queue gets every series for both queue types (zeros included), so a dashboard sees a queue
 *   from its first submission on and a rate never starts from a missing series.
 * - Labels: `repo` (`owner/name`), `branch`, `queue_type`, then `conclusion`, in Trunk's order.
 */
import { expositionText } from '../../plugins/exposition-text';
import { Gauge, Histogram, Registry } from 'prom-client';
import { TERMINAL_STATES } from '../../../engine';
import { QUEUE_TYPES, type QueueMetrics, type QueueTypeMetrics } from '../../../events/queue-metrics';

export const BUCKETS_SECONDS = [60, 300, 600, 900, 1800, 3600, 5400, 7200];

const LABELS = ['repo', 'branch', 'queue_type'] as const;

type GaugeField = 'depth' | 'awaitingMergeability' | 'testing';
type HistogramField = 'waitSeconds' | 'testSeconds' | 'timeInQueueSeconds';

const GAUGES: { name: string; help: string; field: GaugeField }[] = [
  { name: 'mq_depth_current', help: 'PRs currently in the queue', field: 'depth' },
  {
    name: 'mq_awaiting_mergeability',
    help: 'Number of PRs currently awaiting mergeability',
    field: 'awaitingMergeability',
  },
  { name: 'mq_testing_slots_active', help: 'PRs currently in TESTING state', field: 'testing' },
];

const HISTOGRAMS: { name: string; help: string; field: HistogramField }[] = [
  {
    name: 'mq_pr_wait_duration_1h_seconds',
    help: 'Time PRs waited in the queue before testing started (last hour)',
    field: 'waitSeconds',
  },
  {
    name: 'mq_pr_test_duration_1h_seconds',
    help: 'Time PRs spent in TESTING (last hour)',
    field: 'testSeconds',
  },
  {
    name: 'mq_pr_time_in_queue_1h_seconds',
    help: 'Time from entering to leaving the queue, not counting time awaiting mergeability (last hour)',
    field: 'timeInQueueSeconds',
  },
];

function* series(metrics: readonly QueueMetrics[]) {
  for (const { queue, byType } of metrics) {
    for (const queueType of QUEUE_TYPES) {
      const labels = {
        repo: `${queue.owner}/${queue.name}`,
        branch: queue.targetBranch,
        queue_type: queueType,
      };
      yield { labels, values: byType[queueType] satisfies QueueTypeMetrics };
    }
  }
}

export async function renderQueueMetrics(
  metrics: readonly QueueMetrics[],
): Promise<{ contentType: string; body: string }> {
  const registry = new Registry();
  const all = [...series(metrics)];

  // Declared in Trunk's documented order; prom-client prints them in registration order.
  for (const { name, help, field } of GAUGES) {
    const gauge = new Gauge({ name, help, labelNames: LABELS, registers: [registry] });
    for (const { labels, values } of all) gauge.set(labels, values[field]);
  }
  const conclusions = new Gauge({
    name: 'mq_pr_conclusions_1h_total',
    help: 'PRs exiting the queue in last hour',
    labelNames: [...LABELS, 'conclusion'],
    registers: [registry],
  });
  const restarts = new Gauge({
    name: 'mq_pr_restarts_1h_total',
    help: 'PR restarts in last hour',
    labelNames: LABELS,
    registers: [registry],
  });
  for (const { labels, values } of all) {
    for (const conclusion of TERMINAL_STATES) {
      conclusions.set({ ...labels, conclusion }, values.conclusions[conclusion]);
    }
    restarts.set(labels, values.restarts);
  }
  for (const { name, help, field } of HISTOGRAMS) {
    const histogram = new Histogram({
      name,
      help,
      labelNames: LABELS,
      buckets: BUCKETS_SECONDS,
      registers: [registry],
    });
    for (const { labels, values } of all) {
      histogram.zero(labels);
      for (const value of values[field]) histogram.observe(labels, value);
    }
  }
  return { contentType: registry.contentType, body: await expositionText(registry) };
}
