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

type EventType = temporal.api.enums.v1.EventType;
const COMPLETED = 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED';
const SCHEDULED = 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED';

/** Workflow tasks heartbeat by a local activity: completed, and the next scheduled with nothing between. */
function heartbeats(events: temporal.api.history.v1.IHistoryEvent[]): number {
  const name = (t: EventType | null | undefined) => (t == null ? '' : temporal.api.enums.v1.EventType[t]);
  return events.filter(
    (e, i) => name(e.eventType) === COMPLETED && name(events[i + 1]?.eventType) === SCHEDULED,
  ).length;
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
