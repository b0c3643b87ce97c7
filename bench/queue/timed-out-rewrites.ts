/**
 * `bench:continuous --timed-out-tasks N`: the kept queue runs replayed as if each of up to N of their
 * tasks that issued nothing had timed out after the worker processed it (ADR 0029;
 * test/support/replay-timed-out-tasks.ts does the replays in a child process: protobufjs does not
 * survive being loaded twice). Prints how many of the rewrites failed and the first failures; a figure
 * to watch, not a target (ADR 0029 leaves one kind of split open).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { tsNode } from '../../scripts/lib/ts-node';

interface Outcome {
  file: string;
  candidates: number;
  tried: number;
  failed: { task: string; error: string }[];
}

const ROOT = path.resolve(__dirname, '..', '..');

export async function replayTimedOutTasks(bundle: string, perRun: number, files: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    ...tsNode('test/support/replay-timed-out-tasks.ts', bundle, String(perRun), ...files),
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    // Exit 1 means some replay failed; the lines still say which.
    if (err.stdout) return { stdout: err.stdout };
    throw new Error(`the timed-out-task replays did not run: ${err.stderr || err.message}`);
  });
  const outcomes = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Outcome);
  const tried = outcomes.reduce((n, o) => n + o.tried, 0);
  const candidates = outcomes.reduce((n, o) => n + o.candidates, 0);
  const failed = outcomes.flatMap((o) => o.failed.map((f) => ({ run: path.basename(o.file), ...f })));
  const lines = [
    `Timed-out-task rewrites: ${failed.length} of ${tried} failed to replay (${candidates} tasks that issued nothing in ${outcomes.length} runs, up to ${perRun} per run).`,
    ...failed.slice(0, 5).map((f) => {
      const at = f.error.indexOf('Nondeterminism error:');
      return `  ${f.run} task ${f.task}: ${(at >= 0 ? f.error.slice(at) : f.error).slice(0, 200)}`;
    }),
  ];
  return lines.join('\n');
}
