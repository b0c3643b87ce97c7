/**
 * `node --require scripts/lib/ts-require.cjs test/support/replay-run-histories.ts <args as JSON>`: the
 * child process of run-replay.ts. Lists the workflows of the given types whose id contains one of the
 * given organisation ids and that started since the given time (every run: a queue continued as new is
 * several), fetches each history from Temporal and replays it against the given workflow bundle, with
 * no worker kill needed: a nondeterminism that depends on the history shows here on every run that
 * recorded it. A history that fails replay is written to `keepDir` in test/histories' format
 * ({ workflowId, history }, historyFromJSON's input), to replay again or keep as a regression.
 *
 * Prints one JSON line per workflow run ({ workflowId, runId, type, events, heartbeats, error?, file? })
 * and then
 * `replayed N, failed M`. It runs outside jest: protobufjs type checks do not survive jest's module
 * realms (scripts/replay-histories.ts says the same). One replay worker for all histories, one bundle
 * load: the suite is CPU-bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const name = (e: HistoryEvent | undefined) =>
  e?.eventType == null ? '' : temporal.api.enums.v1.EventType[e.eventType];
const ms = (e: HistoryEvent | undefined) => {
  const t = e?.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : NaN;
};
/** 80 % of the default 10 s workflow task timeout: when a worker heartbeats a task a local activity holds. */
const HEARTBEAT_AFTER_MS = 8_000;

/**
 * Workflow tasks a local activity held until the worker heartbeat them: completed at least
 * HEARTBEAT_AFTER_MS after they started, and the next scheduled at once. (A task completed and the next
 * scheduled at once also happens in milliseconds around updates; those are not counted.)
 */
function heartbeats(events: HistoryEvent[]): number {
  return events.filter((e, i) => {
    if (name(e) !== 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') return false;
    if (name(events[i + 1]) !== 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') return false;
    const started = events.find(
      (s) => s.eventId?.toString() === e.workflowTaskCompletedEventAttributes?.startedEventId?.toString(),
    );
    return ms(e) - ms(started) >= HEARTBEAT_AFTER_MS;
  }).length;
}

interface Args {
  temporalAddress: string;
  bundle: string;
  organisations: string[];
  since: string;
  types: string[];
  keepDir: string;
}

async function main(args: Args): Promise<number> {
  const connection = await Connection.connect({ address: args.temporalAddress });
  try {
    const client = new Client({ connection });
    const types = args.types.map((t) => `"${t}"`).join(', ');
    const query = `WorkflowType IN (${types}) AND StartTime >= "${args.since}"`;
    const runs: {
      workflowId: string;
      runId: string;
      type: string;
      history: temporal.api.history.v1.IHistory;
    }[] = [];
    for await (const w of client.workflow.list({ query })) {
      if (!args.organisations.some((o) => w.workflowId.includes(o))) continue;
      const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      runs.push({ workflowId: w.workflowId, runId: w.runId, type: w.type, history });
    }
    let failed = 0;
    const replays = Worker.runReplayHistories(
      { workflowBundle: { codePath: args.bundle } },
      runs.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    let i = 0;
    for await (const result of replays) {
      const run = runs[i++]!;
      const line: Record<string, unknown> = {
        workflowId: run.workflowId,
        runId: run.runId,
        type: run.type,
        events: run.history.events?.length ?? 0,
        heartbeats: heartbeats(run.history.events ?? []),
      };
      if (result.error) {
        failed++;
        line.error = `${result.error.name}: ${result.error.message}`;
        const file = path.join(
          args.keepDir,
          `replay-failed-${`${run.workflowId}-${run.runId}`.replace(/[^A-Za-z0-9-]/g, '_')}.json`,
        );
        fs.mkdirSync(args.keepDir, { recursive: true });
        fs.writeFileSync(
          file,
          JSON.stringify({
            workflowId: run.workflowId,
            history: JSON.parse(historyToJSON(run.history)) as unknown,
          }),
        );
        line.file = file;
      }
      console.log(JSON.stringify(line));
    }
    console.log(`replayed ${runs.length}, failed ${failed}`);
    return 0;
  } finally {
    await connection.close();
  }
}

main(JSON.parse(process.argv[2] ?? '{}') as Args).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
