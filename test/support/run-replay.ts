/**
 * The end of a multi-replica run (test/e2e/replicas.test.ts): every queue workflow run
 * (and whatever other types are asked for) of the run's organisations, fetched from Temporal and
 * replayed offline against the run's workflow bundle (replay-run-histories.ts, in a child process:
 * protobufjs does not survive jest's realms). A workflow that schedules other commands on replay than
 * it did live wedges once a worker without it in its cache takes its task (issue 27: a worker kill at
 * the right moment); replaying the finished history finds that on every run that recorded the
 * pattern, killed at the right moment or not.
 *
 * Invariants: the histories that fail replay are kept in `keepDir` (the run's folder), each named in
 * the answer; a run in which no workflow was found is an error, not a pass (a filter that matched
 * nothing would otherwise hide every nondeterminism).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { tsNode } from '../../scripts/lib/ts-node';
import { createPool } from '../../stores/db';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ReplayedRun {
  workflowId: string;
  runId: string;
  type: string;
  events: number;
  /**
   * Workflow tasks a local activity kept open until the worker heartbeat them (8 s or more, the next
   * task scheduled at once): the pattern whose replay broke the queue (issue 27).
   */
  heartbeats: number;
  error?: string;
  file?: string;
}

export interface RunReplay {
  replayed: ReplayedRun[];
  failed: ReplayedRun[];
}

export async function replayRunHistories(run: {
  temporalAddress: string;
  workflowBundle: string;
  /** Where the run's organisations are listed (needed unless `organisations` names them). */
  databaseUrl?: string;
  since: Date;
  keepDir: string;
  types?: string[];
  /** The organisations whose workflows are replayed; default every one in the run's database. */
  organisations?: string[];
}): Promise<RunReplay> {
  const organisations =
    run.organisations ?? (run.databaseUrl !== undefined ? await organisationsOf(run.databaseUrl) : undefined);
  if (organisations === undefined) throw new Error('replayRunHistories needs organisations or a databaseUrl');
  const args = {
    temporalAddress: run.temporalAddress,
    bundle: run.workflowBundle,
    organisations,
    since: run.since.toISOString(),
    types: run.types ?? ['queueWorkflow'],
    keepDir: run.keepDir,
  };
  const [command, argv] = tsNode('test/support/replay-run-histories.ts', JSON.stringify(args));
  const { stdout } = await promisify(execFile)(command, argv, {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`the offline replay did not run: ${err.stderr || err.message}`);
  });
  const replayed = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as ReplayedRun);
  if (replayed.length === 0)
    throw new Error(`the offline replay found no workflow of the run (${args.types.join(', ')})`);
  return { replayed, failed: replayed.filter((r) => r.error !== undefined) };
}

async function organisationsOf(databaseUrl: string): Promise<string[]> {
  const pool = createPool(databaseUrl, { max: 1 });
  try {
    const { rows } = await pool.query<{ id: string }>('SELECT id::text AS id FROM organisations');
    return rows.map((r) => r.id);
  } finally {
    await pool.end();
  }
}

/** One line per failed replay: the workflow, its error and where its history was kept. */
export function describeReplayFailures(failed: readonly ReplayedRun[]): string {
  return failed
    .map(
      (f) => `${f.type} ${f.workflowId} (run ${f.runId}, ${f.events} events): ${f.error}; kept in ${f.file}`,
    )
    .join('\n');
}
