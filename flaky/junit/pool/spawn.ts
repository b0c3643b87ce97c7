/**
 * Starts one parser thread running worker.ts. From compiled JavaScript (the Docker image runs
 * dist/) the worker is the sibling worker.js. From TypeScript sources (`npm start` runs the API
 * with railyard's require hook, jest compiles with swc) a thread cannot load .ts by itself, so it is
 * started from a small bootstrap that loads that hook first (scripts/lib/ts-require.cjs: tsx's esbuild
 * with a cache, about half the CPU of tsx's own hook for a thread), whatever loader the parent used.
 *
 * Heap: a parse allocates the whole result of a file (thousands of tests) and it lives until the
 * file ends, so with V8's default young generation most of it survives two scavenges and is copied
 * to the old one. A larger young generation lets it die young: about a quarter less CPU per parse
 * in measurements (bench/README.md), for up to 64 MB more memory per thread.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WORKER_MARK } from './protocol';

/** 3 x the semi-space in V8's terms: 32 MB semi-spaces instead of 16. */
const YOUNG_GENERATION_MB = 96;

export function spawnParserWorker(): Worker {
  const fromSources = __filename.endsWith('.ts');
  const entry = join(__dirname, fromSources ? 'worker.ts' : 'worker.js');
  const options = {
    workerData: { mark: WORKER_MARK },
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    stdout: false,
    stderr: false,
  };
  if (!fromSources) return new Worker(entry, options);
  const hook = join(__dirname, '..', '..', '..', 'scripts', 'lib', 'ts-require.cjs');
  const bootstrap = [`require(${JSON.stringify(hook)});`, `require(${JSON.stringify(entry)});`].join('\n');
  return new Worker(bootstrap, { ...options, eval: true });
}
