/**
 * Chart data for the pages: plain numbers shaped as Chart.js `data` objects, written into the page as
 * JSON (`<script type="application/json">`, which never runs) and drawn by /ui/assets/charts.js with
 * Chart.js. `jsonForScript` escapes `<`, `>` and `&` so no value can close the script element.
 */
import type { QueueTypeMetrics } from '../../../events/queue-metrics';
import type { DayCount } from '../store/reads';

export interface ChartSpec {
  readonly type: 'bar' | 'line';
  readonly title: string;
  readonly labels: readonly string[];
  readonly datasets: readonly {
    readonly label: string;
    readonly data: readonly number[];
    readonly backgroundColor?: string;
  }[];
  readonly stacked?: boolean;
}

export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Upper bounds (seconds) of the duration buckets; the last bucket is everything longer. */
const EDGES = [10, 30, 60, 120, 300, 600, 1800, 3600];
const edgeLabel = (s: number) => (s < 60 ? `≤${s}s` : `≤${s / 60}m`);
export const BUCKET_LABELS = [...EDGES.map(edgeLabel), `>${EDGES[EDGES.length - 1]! / 60}m`];

export function buckets(seconds: readonly number[]): number[] {
  const counts = BUCKET_LABELS.map(() => 0);
  for (const s of seconds) {
    const i = EDGES.findIndex((e) => s <= e);
    counts[i === -1 ? EDGES.length : i]! += 1;
  }
  return counts;
}

export function queueCharts(byType: Record<'main' | 'bisection', QueueTypeMetrics>): ChartSpec[] {
  const types = ['main', 'bisection'] as const;
  const durations = (title: string, pick: (m: QueueTypeMetrics) => number[]): ChartSpec => ({
    type: 'bar',
    title,
    labels: BUCKET_LABELS,
    stacked: true,
    datasets: types.map((t) => ({ label: t, data: buckets(pick(byType[t])) })),
  });
  return [
    {
      type: 'bar',
      title: 'Now in the queue',
      labels: ['waiting (depth)', 'testing', 'not ready'],
      stacked: true,
      datasets: types.map((t) => ({
        label: t,
        data: [byType[t].depth, byType[t].testing, byType[t].awaitingMergeability],
      })),
    },
    {
      type: 'bar',
      title: 'Left the queue in the last hour',
      labels: ['merged', 'failed', 'cancelled', 'restarts'],
      stacked: true,
      datasets: types.map((t) => ({
        label: t,
        data: [
          byType[t].conclusions.merged,
          byType[t].conclusions.failed,
          byType[t].conclusions.cancelled,
          byType[t].restarts,
        ],
      })),
    },
    durations('Wait before testing (last hour)', (m) => m.waitSeconds),
    durations('Test duration (last hour)', (m) => m.testSeconds),
    durations('Time in queue (last hour)', (m) => m.timeInQueueSeconds),
  ];
}

export function historyChart(days: readonly DayCount[]): ChartSpec {
  return {
    type: 'bar',
    title: 'Failures per day (last 30 days)',
    labels: days.map((d) => d.day.slice(5)),
    datasets: [
      { label: 'failures', data: days.map((d) => d.failures), backgroundColor: '#f04438' },
      {
        label: 'passes',
        data: days.map((d) => Math.max(0, d.attempts - d.failures)),
        backgroundColor: '#32d583',
      },
    ],
    stacked: true,
  };
}
