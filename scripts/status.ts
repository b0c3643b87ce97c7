/**
 * `npm run status`: what the `npm start` of this folder runs — each process with its pid, the ports and
 * whether they answer, the API, docs and Temporal Web UI URLs. Never prints the API key (only its file).
 * Exit code: 0 running, 1 not running, 2 only processes a killed `npm start` left (`npm run stop` ends
 * them).
 */
import path from 'node:path';
import { liveChildren, readInstance, supervisorAlive } from './lib/instance';
import { isPortOpen } from './lib/ports';

async function main(): Promise<number> {
  const r = readInstance();
  if (!r) {
    console.log('railyard is not running (no npm start recorded in this folder).');
    return 1;
  }
  const up = supervisorAlive(r);
  const live = new Set(liveChildren(r).map((c) => c.pid));
  if (!up && live.size === 0) {
    console.log('railyard is not running.');
    return 1;
  }
  const port = async (p: number | undefined) =>
    p === undefined ? '' : `127.0.0.1:${p} ${(await isPortOpen(p)) ? 'open' : 'closed'}`;
  const portOf: Record<string, number | undefined> = {
    api: r.ports.api,
    temporal: r.ports.temporal,
    postgres: r.ports.postgres,
  };
  console.log(
    up
      ? `railyard is ${r.state} (supervisor pid ${r.pid}, started ${r.startedAt})`
      : `railyard's npm start is gone, but processes it started still run; \`npm run stop\` ends them.`,
  );
  for (const c of r.children) {
    const state = live.has(c.pid) ? `pid ${c.pid}` : 'exited';
    console.log(`  ${c.name.padEnd(9)} ${state.padEnd(11)} ${await port(portOf[c.name])}`.trimEnd());
  }
  console.log(`  API               ${r.urls.api}   (docs ${r.urls.docs})`);
  if (r.urls.temporalUi)
    console.log(`  Temporal Web UI   ${r.urls.temporalUi}   (${await port(r.ports.temporalUi)})`);
  if (r.postgresDataDir) console.log(`  PostgreSQL data   ${r.postgresDataDir}`);
  console.log(
    `  API key (dev)     in ${path.join(r.dataDir, 'dev-api-key')}; temporal.log and postgres.log in ${r.dataDir}`,
  );
  console.log('Stop it with `npm run stop`.');
  return up ? 0 : 2;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`railyard status: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
