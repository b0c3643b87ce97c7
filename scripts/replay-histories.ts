/**
 * `tsx scripts/replay-histories.ts [bundle.js]`: replays every history in test/histories against the
 * current workflow code (the given bundle, or a fresh one). Exits 1 and names the history when replay
 * finds non-determinism. Runs outside jest: protobufjs type checks do not survive jest's module realms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';

const DIR = path.resolve(__dirname, '..', 'test', 'histories');

async function main(): Promise<number> {
  const bundlePath = process.argv[2];
  const workflowBundle = bundlePath
    ? { codePath: bundlePath }
    : { code: (await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') })).code };
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  let failed = 0;
  for (const file of files) {
    const { workflowId, history } = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as {
      workflowId: string;
      history: unknown;
    };
    try {
      await Worker.runReplayHistory({ workflowBundle }, history, workflowId);
      console.log(`ok ${file}`);
    } catch (err) {
      failed++;
      console.log(`FAILED ${file}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    }
  }
  console.log(`${files.length - failed} passed, ${failed} failed`);
  return failed === 0 && files.length > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(String(err));
    process.exit(1);
  },
);
