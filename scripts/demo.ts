/**
 * `npm run demo` (after `npm start`): plays the demo's scenario (scripts/lib/demo-scenario.ts) against
 * the running stack: a small project in a fresh local repository (the first time local/demo/app, the
 * repository the examples of /v1/docs name), six pull requests (one breaks the tests, two conflict
 * with each other), a batching queue created through the HTTP API, every PR submitted and followed
 * until merged or failed, then the target branch's log and the Temporal UI links. Talks only to the
 * public API, like a CI system would. The dashboard's browser test plays the same scenario.
 */
import path from 'node:path';
import { apiUrl, DEFAULT_API_PORT } from '../platform/public-url';
import { dataDir, PROJECT_ROOT, readState } from './lib/data-dir';
import { playDemoScenario } from './lib/demo-scenario';

const API =
  process.env.RAILYARD_DEMO_API ??
  apiUrl({ port: Number(process.env.RAILYARD_API_PORT ?? DEFAULT_API_PORT) });
const UI = 'http://127.0.0.1:8233';

async function main(): Promise<void> {
  const key = process.env.RAILYARD_DEMO_KEY ?? readState('dev-api-key');
  if (!key) throw new Error('No API key: run `npm start` first (it creates .data/dev-api-key).');
  try {
    await fetch(`${API}/healthz`);
  } catch {
    throw new Error(`railyard does not answer at ${API}; run \`npm start\` in another terminal first.`);
  }
  const gitRoot = process.env.RAILYARD_GIT_ROOT
    ? path.resolve(PROJECT_ROOT, process.env.RAILYARD_GIT_ROOT)
    : path.join(dataDir(), 'git');
  await playDemoScenario({
    api: { url: API, key },
    gitRoot,
    temporalUi: UI,
    say: (line) => console.log(line),
  });
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
