/**
 * `npm run bench:content` (issue 25, ADR 0025): what a test run's content hand-off costs the control
 * plane with a full bundle per run (the baseline, measured in the same run) and with thin content on a
 * shared basis. A repository with a long history (`--commits`, default 3,000, each changing one file
 * with `--file-kb` KiB of incompressible bytes, default 8: about 24 MB of history) gets `--runs`
 * successive merges (default 10); each merged commit is prepared twice, full then thin, by the worker's
 * own prepareRun on a real PostgreSQL, and each run's content is dropped as the workflow drops it.
 *
 * Per run it prints the bytes staged in PostgreSQL (the run's content plus any basis staged for it) and
 * the worker's CPU (this process and the git processes it waited for, /proc/self/stat) and wall time;
 * then the medians and the thin/full ratios. PostgreSQL's own CPU is not counted (it stores the bytes
 * counted). The first thin run stages the basis: it is shown apart and included in the medians.
 *
 * Then the executor's side of each run, in this process with the executor's own code: the bytes it
 * reads from PostgreSQL (what the API would send it) and the CPU and wall of making the checkout: a
 * clone of the full bundle, or the object cache (executor/object-cache.ts, one cache for the thin runs,
 * so the first fetches the basis and the others find it).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLocalGitHost } from '../../git/local-git-host';
import { createPool } from '../../stores/db';
import { runMigrations } from '../../stores/migrate';
import { freePort } from '../../scripts/lib/ports';
import { startCluster } from '../../scripts/lib/postgres';
import { Supervisor } from '../../scripts/lib/supervisor';
import { prepareRun, type PrepareDeps } from '../../test-runs/prepare';
import { createRunBaseStore } from '../../test-runs/store/run-bases';
import { createRunContentStore } from '../../test-runs/store/run-content';
import { createHardenedGit } from '../../executor/git-command';
import { createDirectProcessRunner } from '../../platform/process-runner';
import { createObjectCache, DEFAULT_OBJECT_CACHE_BYTES } from '../../executor/object-cache';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const COMMITS = arg('commits', 3000);
const RUNS = arg('runs', 10);
const FILE_KB = arg('file-kb', 8);
const log = (m: string) => console.error(`bench:content: ${m}`);

/** CPU seconds of this process and of the children it waited for (git). */
function cpuSeconds(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after the command's closing paren.
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / 100;
}

/** A history of `commits` + `runs` commits on main, written by git fast-import in one go. */
function makeHistory(bare: string, total: number): string[] {
  const chunks: Buffer[] = [];
  const push = (s: string | Buffer) => chunks.push(typeof s === 'string' ? Buffer.from(s) : s);
  const config = JSON.stringify({ version: 1, command: 'true' });
  for (let i = 0; i < total; i += 1) {
    const body = randomBytes(FILE_KB * 1024);
    push(`commit refs/heads/main\ncommitter bench <b@example.com> ${1_700_000_000 + i} +0000\n`);
    push(`data ${`commit ${i}`.length}\ncommit ${i}\n`);
    if (i === 0) push(`M 100644 inline .railyard/merge-queue.json\ndata ${config.length}\n${config}\n`);
    push(`M 100644 inline src/f${i % 50}.bin\ndata ${body.length}\n`);
    push(body);
    push('\n\n');
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: Buffer.concat(chunks) });
  return execFileSync('git', ['rev-list', '--reverse', 'main'], { cwd: bare, encoding: 'utf8' })
    .trim()
    .split('\n');
}

/** Writes a staged bundle's chunks to `file`; answers its bytes. */
async function spool(file: string, chunk: (seq: number) => Promise<Buffer | null>): Promise<number> {
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  try {
    for (let seq = 0; ; seq += 1) {
      const piece = await chunk(seq);
      if (piece === null) return bytes;
      fs.writeSync(fd, piece);
      bytes += piece.length;
    }
  } finally {
    fs.closeSync(fd);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const sup = new Supervisor(log);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-bench-content-'));
  try {
    // As root the cluster runs as an unprivileged user (scripts/lib/postgres.ts), which must enter here.
    fs.chmodSync(tmp, 0o755);
    log('starting PostgreSQL...');
    const pg = await startCluster(
      sup,
      { dataDir: path.join(tmp, 'pg'), port: await freePort(), ephemeral: true },
      'railyard',
    );
    await runMigrations(pg.url);
    const pool = createPool(pg.url, { max: 4 });
    const organisationId = randomUUID();
    await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [organisationId, 'bench']);
    const repo = { host: 'github.com', owner: 'acme', name: 'history' };
    const gitHost = createLocalGitHost({ root: path.join(tmp, 'git') });
    const bare = gitHost.repositoryPath(repo);
    fs.mkdirSync(bare, { recursive: true });
    execFileSync('git', ['init', '--quiet', '--bare'], { cwd: bare });
    log(`writing ${COMMITS + RUNS} commits of ${FILE_KB} KiB...`);
    const shas = makeHistory(bare, COMMITS + RUNS);
    execFileSync('git', ['gc', '--quiet'], { cwd: bare });
    const packBytes = fs
      .readdirSync(path.join(bare, 'objects', 'pack'))
      .reduce((sum, f) => sum + fs.statSync(path.join(bare, 'objects', 'pack', f)).size, 0);
    log(`history: ${shas.length} commits, ${(packBytes / 1e6).toFixed(1)} MB packed`);

    const maxBytes = 1024 * 1024 * 1024;
    const bases = createRunBaseStore(pool, { maxBytes });
    const contents = createRunContentStore(pool, { maxBytes, bases });
    const scratchRoot = path.join(tmp, 'scratch');
    const full: PrepareDeps = { gitHost, contents, scratchRoot };
    const thin: PrepareDeps = { gitHost, contents, bases, scratchRoot };
    const git = createHardenedGit(createDirectProcessRunner());
    const basesBytes = async () =>
      Number((await pool.query('SELECT coalesce(sum(size_bytes), 0) AS n FROM run_bases')).rows[0].n);

    type Row = { bytes: number; cpu: number; wall: number };
    const rows: Record<'full' | 'thin', Row[]> = { full: [], thin: [] };
    const executor: Record<'full' | 'thin', Row[]> = { full: [], thin: [] };
    const cache = createObjectCache({
      root: path.join(tmp, 'object-cache'),
      maxBytes: DEFAULT_OBJECT_CACHE_BYTES,
    });
    for (let i = 0; i < RUNS; i += 1) {
      const headSha = shas[COMMITS + i]!;
      for (const [mode, deps] of [
        ['full', full],
        ['thin', thin],
      ] as const) {
        const runId = randomUUID();
        const basesBefore = await basesBytes();
        const cpu0 = cpuSeconds();
        const t0 = performance.now();
        const run = await prepareRun(deps, { organisationId, repo, runId, headSha });
        const wall = (performance.now() - t0) / 1000;
        const cpu = cpuSeconds() - cpu0;
        if (run.kind !== 'ready') throw new Error(`run ${i} not ready: ${run.kind}`);
        const content = Number(
          (await pool.query('SELECT size_bytes FROM run_contents WHERE test_run_id = $1', [runId])).rows[0]
            .size_bytes,
        );
        const bytes = content + (await basesBytes()) - basesBefore;
        rows[mode].push({ bytes, cpu, wall });
        console.log(
          `run ${i + 1} ${mode}: staged ${(bytes / 1e6).toFixed(3)} MB, worker CPU ${cpu.toFixed(2)} s, wall ${wall.toFixed(2)} s`,
        );
        const token = run.contentToken;
        const directory = path.join(tmp, 'checkouts', runId, 'checkout');
        fs.mkdirSync(path.dirname(directory), { recursive: true });
        const bundle = path.join(tmp, 'checkouts', runId, 'content.bundle');
        const e0 = cpuSeconds();
        const te = performance.now();
        let sent = await spool(bundle, (seq) => contents.chunk(token, seq));
        const staged = (await contents.lookup(token))!;
        if (staged.basis) {
          await cache.checkout({
            organisationId,
            repo,
            basisSha: staged.basis.sha,
            thinBundle: bundle,
            sha: headSha,
            directory,
            fetchBasis: async (file) => {
              sent += await spool(file, (seq) => contents.basisChunk(token, seq));
            },
          });
        } else {
          await git.run(path.dirname(directory), [
            'clone',
            '--quiet',
            '--no-checkout',
            '--',
            bundle,
            directory,
          ]);
          await git.run(directory, ['checkout', '--quiet', '--detach', headSha]);
        }
        executor[mode].push({ bytes: sent, cpu: cpuSeconds() - e0, wall: (performance.now() - te) / 1000 });
        fs.rmSync(path.join(tmp, 'checkouts', runId), { recursive: true, force: true });
        await contents.drop(runId);
      }
    }
    const summary = (of: Record<'full' | 'thin', Row[]>, mode: 'full' | 'thin') => ({
      bytes: median(of[mode].map((r) => r.bytes)),
      cpu: median(of[mode].map((r) => r.cpu)),
      wall: median(of[mode].map((r) => r.wall)),
    });
    const [f, t] = [summary(rows, 'full'), summary(rows, 'thin')];
    const [ef, et] = [summary(executor, 'full'), summary(executor, 'thin')];
    const first = rows.thin[0]!;
    console.log(
      `\nhistory ${shas.length} commits, ${(packBytes / 1e6).toFixed(1)} MB packed; ${RUNS} runs; ` +
        `load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} on ${os.cpus().length} cores`,
    );
    console.log(
      `first thin run (stages the basis): ${(first.bytes / 1e6).toFixed(2)} MB, CPU ${first.cpu.toFixed(2)} s, wall ${first.wall.toFixed(2)} s`,
    );
    for (const [name, key, unit, scale] of [
      ['staged per run', 'bytes', 'MB', 1e6],
      ['worker CPU per run', 'cpu', 's', 1],
      ['worker wall per run', 'wall', 's', 1],
    ] as const)
      console.log(
        `median ${name}: full ${(f[key] / scale).toFixed(3)} ${unit}, thin ${(t[key] / scale).toFixed(3)} ${unit}, ` +
          `thin/full ${(t[key] / f[key]).toFixed(4)}`,
      );
    for (const [name, key, unit, scale] of [
      ['executor reads per run', 'bytes', 'MB', 1e6],
      ['executor checkout CPU per run', 'cpu', 's', 1],
      ['executor checkout wall per run', 'wall', 's', 1],
    ] as const)
      console.log(
        `median ${name}: full ${(ef[key] / scale).toFixed(3)} ${unit}, thin ${(et[key] / scale).toFixed(3)} ${unit}, ` +
          `thin/full ${(et[key] / ef[key]).toFixed(4)}`,
      );
    const firstExecutor = executor.thin[0]!;
    console.log(
      `first thin checkout (fetches the basis): ${(firstExecutor.bytes / 1e6).toFixed(2)} MB, CPU ` +
        `${firstExecutor.cpu.toFixed(2)} s, wall ${firstExecutor.wall.toFixed(2)} s`,
    );
    await pool.end();
  } finally {
    await sup.stopAll();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
