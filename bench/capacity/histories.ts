/**
 * Temporal history events and bytes of every workflow execution in the namespace, by workflow type:
 * closed executions from visibility (their history length and size are final), running ones from
 * describe (visibility's copy of a running execution is only as fresh as its last update). Every run
 * of a workflow that continued as new is an execution of its own, so the sum covers whole chains.
 *
 * Rule: counted from what Temporal stores, never estimated; the caller takes the difference of two
 * counts around a phase, so events of workflows that were already running are split at the boundary.
 */
import type { Client } from '@temporalio/client';

export interface HistoryTotals {
  executions: number;
  events: number;
  bytes: number;
  byType: Record<string, { executions: number; events: number; bytes: number }>;
}

export async function countHistories(client: Client): Promise<HistoryTotals> {
  const totals: HistoryTotals = { executions: 0, events: 0, bytes: 0, byType: {} };
  const running: { workflowId: string; runId: string; type: string }[] = [];
  const add = (type: string, events: number, bytes: number) => {
    const t = (totals.byType[type] ??= { executions: 0, events: 0, bytes: 0 });
    t.executions++;
    t.events += events;
    t.bytes += bytes;
    totals.executions++;
    totals.events += events;
    totals.bytes += bytes;
  };
  for await (const w of client.workflow.list()) {
    if (w.status.name === 'RUNNING') running.push({ workflowId: w.workflowId, runId: w.runId, type: w.type });
    else add(w.type, w.historyLength, w.historySize ?? 0);
  }
  for (const r of running) {
    const d = await client.workflow.getHandle(r.workflowId, r.runId).describe();
    add(r.type, d.historyLength, d.historySize ?? 0);
  }
  return totals;
}

export function historyDelta(after: HistoryTotals, before: HistoryTotals): HistoryTotals {
  const byType: HistoryTotals['byType'] = {};
  for (const [type, t] of Object.entries(after.byType)) {
    const b = before.byType[type];
    byType[type] = {
      executions: t.executions - (b?.executions ?? 0),
      events: t.events - (b?.events ?? 0),
      bytes: t.bytes - (b?.bytes ?? 0),
    };
  }
  return {
    executions: after.executions - before.executions,
    events: after.events - before.events,
    bytes: after.bytes - before.bytes,
    byType,
  };
}
