/**
 * What a multi-replica run (test/e2e/replicas.test.ts) leaves to look at when it fails: the Temporal
 * state of every workflow of the run's organisations still running (pending activities with their
 * attempt, last failure and heartbeat, the pending workflow task), and the warnings and errors each
 * process logged (api, api-2, worker, worker-2, executor, executor-2). An unfinished PR is explained by
 * these first: a run stuck in an activity, a workflow task that cannot complete, a process that failed.
 *
 * A workflow whose task keeps failing (attempt above 1: a nondeterminism on replay, as the queue's
 * once after a worker kill) gets its history written beside the logs, to replay offline.
 *
 * Invariants: read only (describe, history and visibility, no query: a stalled worker must not stall the
 * evidence); bounded (at most MAX_WORKFLOWS described, MAX_LOG_LINES per log); never throws (a failure
 * to gather is itself a line of the evidence).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../../stores/db';
import { requireTestEnv } from './env';

const MAX_WORKFLOWS = 40;
const MAX_LOG_LINES = 30;

const iso = (t: unknown): string => {
  if (t instanceof Date) return t.toISOString().slice(11, 23);
  if (t && typeof t === 'object' && 'seconds' in t) {
    const s = Number(t.seconds);
    return new Date(s * 1000).toISOString().slice(11, 19);
  }
  return '-';
};

/** Running workflows of the run's organisations started since `since`, described. */
async function temporalState(
  temporalAddress: string,
  databaseUrl: string,
  since: Date,
  keepDir: string | null,
): Promise<string[]> {
  const pool = createPool(databaseUrl, { max: 1 });
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const { rows } = await pool.query<{ id: string }>('SELECT id::text AS id FROM organisations');
    const orgs = rows.map((r) => r.id);
    const client = new Client({ connection });
    const lines: string[] = [];
    const query = `ExecutionStatus = "Running" AND StartTime >= "${since.toISOString()}"`;
    let n = 0;
    for await (const w of client.workflow.list({ query })) {
      if (!orgs.some((o) => w.workflowId.includes(o))) continue;
      if (++n > MAX_WORKFLOWS) {
        lines.push('(more running workflows not described)');
        break;
      }
      const d = await client.workflow.getHandle(w.workflowId, w.runId).describe();
      const raw = d.raw;
      lines.push(`${d.type} ${w.workflowId} history ${d.historyLength} events`);
      const task = raw.pendingWorkflowTask;
      if (task)
        lines.push(
          `  workflow task: state ${task.state} attempt ${task.attempt} scheduled ${iso(task.scheduledTime)} started ${iso(task.startedTime)}`,
        );
      // A task that keeps failing (a nondeterminism on replay): its history, for replaying it offline.
      if (task && (task.attempt ?? 0) > 1 && keepDir) {
        const file = path.join(keepDir, `history-${w.workflowId.replace(/[^A-Za-z0-9-]/g, '_')}.json`);
        try {
          // As `temporal workflow show --output json` prints it: historyFromJSON's input (histories.ts).
          const json = execFileSync(
            requireTestEnv('TEST_TEMPORAL_CLI'),
            [
              'workflow',
              'show',
              '--workflow-id',
              w.workflowId,
              '--run-id',
              w.runId,
              '--output',
              'json',
            ].concat(['--address', temporalAddress]),
            { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
          );
          fs.writeFileSync(
            file,
            JSON.stringify({ workflowId: w.workflowId, history: JSON.parse(json) as unknown }),
          );
          lines.push(`  its history: ${file}`);
        } catch (err) {
          lines.push(`  its history could not be kept: ${(err as Error).message}`);
        }
      }
      for (const a of raw.pendingActivities ?? [])
        lines.push(
          `  activity ${a.activityType?.name}: state ${a.state} attempt ${a.attempt} started ${iso(a.lastStartedTime)} heartbeat ${iso(a.lastHeartbeatTime)} by ${a.lastWorkerIdentity || '-'}${a.lastFailure ? ` last failure: ${a.lastFailure.message}` : ''}`,
        );
    }
    if (n === 0) lines.push('no workflow of the run still runs');
    return lines;
  } finally {
    await connection.close();
    await pool.end();
  }
}

/** The last warnings and errors of each process's log in `logDir`. */
function logWarnings(logDir: string): string[] {
  const lines: string[] = [];
  for (const file of fs.readdirSync(logDir).filter((f) => /^(api|worker|executor)(-\d+)?\.log$/.test(f))) {
    const bad = fs
      .readFileSync(path.join(logDir, file), 'utf8')
      .split('\n')
      .filter((l) => /"level":(40|50|60)|WARN|ERROR/.test(l));
    lines.push(
      `${file}: ${bad.length} warnings and errors, the last ${Math.min(bad.length, MAX_LOG_LINES)}:`,
    );
    lines.push(...bad.slice(-MAX_LOG_LINES).map((l) => `  ${l.slice(0, 600)}`));
  }
  return lines;
}

export async function replicaEvidence(run: {
  temporalAddress: string;
  databaseUrl: string;
  since: Date;
  logDir: string;
}): Promise<string> {
  const parts: string[] = [];
  try {
    const keepDir = fs.existsSync(run.logDir) ? run.logDir : null;
    parts.push(
      'Temporal:',
      ...(await temporalState(run.temporalAddress, run.databaseUrl, run.since, keepDir)),
    );
  } catch (err) {
    parts.push(`Temporal: could not describe (${(err as Error).message})`);
  }
  try {
    parts.push(...logWarnings(run.logDir));
  } catch (err) {
    parts.push(`logs: could not read (${(err as Error).message})`);
  }
  return parts.join('\n');
}
