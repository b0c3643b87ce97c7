/**
 * `node --require scripts/lib/ts-require.cjs test/support/replay-files.ts <bundle.js> <history.json>...`:
 * replays each history (as test/support/histories.ts saves it: `{ workflowId, history }`, the history
 * as `temporal workflow show --output json` prints it) against the given workflow bundle, and prints
 * `ok <file>` or `FAILED <file>: <error>` for each, then `<n> passed, <m> failed`. For stories that
 * replay a history they just made (scripts/replay-histories.ts replays the committed ones). Outside
 * jest, as that script: protobufjs type checks do not survive jest's module realms.
 */
import fs from 'node:fs';
import { Worker } from '@temporalio/worker';

async function main(): Promise<number> {
  const [codePath, ...files] = process.argv.slice(2);
  if (!codePath || files.length === 0) {
    console.error('usage: replay-files.ts <bundle.js> <history.json>...');
    return 2;
  }
  let failed = 0;
  for (const file of files) {
    const { workflowId, history } = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      workflowId: string;
      history: unknown;
    };
    try {
      await Worker.runReplayHistory({ workflowBundle: { codePath } }, history, workflowId);
      console.log(`ok ${file}`);
    } catch (err) {
      failed++;
      console.log(`FAILED ${file}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    }
  }
  console.log(`${files.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(String(err));
    process.exit(1);
  },
);
