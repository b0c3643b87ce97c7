/**
 * /healthz latency while the protobuf amplification bomb of issue 24 is read (a Trunk bundle whose
 * internal.bin is 20 MiB of empty messages, about 2 KB with `zstd -3`), against a baseline run with
 * no bomb, in one process: an HTTP server answering /healthz as the API does, a client probing it
 * every 10 ms, and the bomb read the way the API reads a bundle PUT — on the parser pool's thread
 * (production, RAILYARD_PARSER_THREADS ≥ 1) and, for comparison, on the event loop (threads = 0).
 *
 *   npx tsx bench/flaky/bomb-latency.ts [--rounds 5]
 *
 * Prints, per scenario, the median, p99 and max /healthz latency and how long each bomb took to be
 * refused. Needs the `zstd` program (as the tests do).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BUNDLE_LIMITS, readBundle } from '../../flaky/bundle';
import { inThreadJunitParser } from '../../flaky/junit';
import { startJunitParserPool } from '../../flaky/junit/pool';
import { metaJson, tarOf, zstd } from '../../test/support/bundles';

/** The pool reads a stream, as the upload route hands it one. */
function chunks(buffer: Uint8Array): AsyncIterable<Uint8Array> {
  return (async function* () {
    await Promise.resolve();
    yield buffer;
  })();
}

const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 5) || 5;

async function bombBundle(): Promise<Buffer> {
  const internal = Buffer.alloc(20 * 1024 * 1024);
  for (let i = 0; i < internal.length; i += 2) internal[i] = 0x0a;
  return zstd(
    await tarOf([
      { name: 'meta.json', content: JSON.stringify(metaJson({ internalBundled: true })) },
      { name: 'internal.bin', content: internal },
    ]),
    3,
  );
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const server = createServer((_req, res) => res.writeHead(200).end('{"status":"ok"}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  const pool = await startJunitParserPool({ threads: 1 });
  const bomb = await bombBundle();
  console.error(`bomb: ${bomb.length} bytes compressed`);

  /** Probes /healthz every 10 ms while `work` runs (or for `idleMs`), returning latencies. */
  async function probe(work: () => Promise<unknown>): Promise<{ latencies: number[]; workMs: number }> {
    const latencies: number[] = [];
    let done = false;
    const prober = (async () => {
      while (!done) {
        const started = performance.now();
        await (await fetch(url)).text();
        latencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const started = performance.now();
    await work().catch(() => undefined);
    const workMs = performance.now() - started;
    done = true;
    await prober;
    return { latencies, workMs };
  }

  const scenarios: [string, () => Promise<unknown>][] = [
    ['baseline (no bomb, 1.5 s)', () => new Promise((r) => setTimeout(r, 1_500))],
    ['bomb on the parser pool thread', () => pool.readBundle(chunks(bomb), DEFAULT_BUNDLE_LIMITS)],
    [
      'bomb on the event loop (threads = 0)',
      () => readBundle([bomb], { parser: inThreadJunitParser, limits: DEFAULT_BUNDLE_LIMITS }),
    ],
  ];
  const rows: string[] = [];
  for (const [name, work] of scenarios) {
    const all: number[] = [];
    const works: number[] = [];
    for (let i = 0; i < rounds; i += 1) {
      const { latencies, workMs } = await probe(work);
      all.push(...latencies);
      works.push(workMs);
    }
    all.sort((a, b) => a - b);
    works.sort((a, b) => a - b);
    rows.push(
      `| ${name.padEnd(38)} | ${quantile(all, 0.5).toFixed(1).padStart(6)} | ${quantile(all, 0.99).toFixed(1).padStart(7)} | ${all[all.length - 1]!.toFixed(1).padStart(7)} | ${quantile(works, 0.5).toFixed(0).padStart(10)} |`,
    );
  }
  console.log(`/healthz latency (ms) while the bomb is read, ${rounds} rounds each:\n`);
  console.log(`| ${'scenario'.padEnd(38)} | median |     p99 |     max | refused in |`);
  console.log(`| ${'-'.repeat(38)} | ------ | ------- | ------- | ---------- |`);
  for (const row of rows) console.log(row);
  await pool.close();
  server.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
