/**
 * Recorded histories for the replay test (test/integration/replay), which replays every file in
 * test/histories against the current workflow bundle. With RECORD_HISTORIES=1 the stories that call
 * `recordHistory` save the history of a workflow they drove, as `temporal workflow show --output json`
 * prints it (the documented input of historyFromJSON: protobufjs objects do not survive jest realms);
 * otherwise it does nothing. test/histories/README.md lists which story records which file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { requireTestEnv } from './env';

/** Saves test/histories/<name>.json: the workflow's latest run, or the run `runId` names. */
export function recordHistory(name: string, workflowId: string, runId?: string): void {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const json = execFileSync(
    requireTestEnv('TEST_TEMPORAL_CLI'),
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      ...(runId ? ['--run-id', runId] : []),
      '--output',
      'json',
      '--address',
      requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const file = path.resolve(__dirname, '..', 'histories', `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ workflowId, history: JSON.parse(json) as unknown }));
}
