/**
 * `node --require scripts/lib/ts-require.cjs test/support/replay-timed-out-tasks.ts <bundle.js|current> <max> <history.json>...`:
 * for each history (`{ workflowId, history }` as test/support/histories.ts saves it, or the bare history
 * `bench:continuous --keep-histories` writes), replays it as recorded and then as if each of its
 * workflow tasks that issued nothing had timed out after the worker processed it (timed-out-task.ts),
 * at most `max` of them per history, spread over it. Prints one JSON line per history
 * (`{ file, candidates, tried, failed: [{ task, error }] }`) and exits 1 when any replay failed.
 * `current` bundles the workflows of this checkout first. Outside jest, as scripts/replay-histories.ts:
 * protobufjs type checks do not survive jest's realms.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { timedOutTaskCandidates, timeOutTask, type JsonHistory } from './timed-out-task';

interface Outcome {
  file: string;
  candidates: number;
  tried: number;
  failed: { task: string; error: string }[];
}

async function replay(codePath: string, history: JsonHistory, workflowId: string): Promise<string | null> {
  try {
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, history, workflowId);
    return null;
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
}

/** The workflows of this checkout, bundled into a temporary file. */
async function currentBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-bundle-')), 'workflows.js');
  fs.writeFileSync(file, code);
  return file;
}

/** At most `max` of `all`, evenly spread (the first and the last kept). */
function spread<T>(all: T[], max: number): T[] {
  if (all.length <= max) return all;
  return Array.from({ length: max }, (_, i) => all[Math.round((i * (all.length - 1)) / (max - 1))]!);
}

async function main(): Promise<number> {
  const [bundleArg, maxArg, ...files] = process.argv.slice(2);
  const max = Number(maxArg);
  if (!bundleArg || !Number.isInteger(max) || max < 2 || files.length === 0) {
    console.error(
      'usage: replay-timed-out-tasks.ts <bundle.js|current> <max per history, 2 or more> <history.json>...',
    );
    return 2;
  }
  const codePath = bundleArg === 'current' ? await currentBundle() : bundleArg;
  let failures = 0;
  for (const file of files) {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { workflowId?: string; history?: JsonHistory };
    const history = raw.history ?? (raw as unknown as JsonHistory);
    const workflowId = raw.workflowId ?? 'replayed';
    const outcome: Outcome = { file, candidates: 0, tried: 0, failed: [] };
    const asRecorded = await replay(codePath, history, workflowId);
    if (asRecorded !== null) outcome.failed.push({ task: 'as recorded', error: asRecorded });
    else {
      const candidates = timedOutTaskCandidates(history);
      outcome.candidates = candidates.length;
      for (const task of spread(candidates, max)) {
        outcome.tried++;
        const error = await replay(codePath, timeOutTask(history, task), workflowId);
        if (error !== null) outcome.failed.push({ task, error: error.slice(0, 600) });
      }
    }
    failures += outcome.failed.length;
    console.log(JSON.stringify(outcome));
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(String(err));
    process.exit(1);
  },
);
