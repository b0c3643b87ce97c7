/**
 * Thin run content (issue 25, ADR 0025) on real git, PostgreSQL and the API's executor routes over
 * HTTP: the worker's prepareRun stages a basis once and thin bundles on it; an executor's object cache
 * (executor/object-cache.ts) fetches the basis once and makes each run's checkout from the cache and
 * the thin bundle, holding only objects reachable from the tested commit; the basis route answers only
 * the executor holding the job; the cache's bound evicts least recently used entries; old executors
 * (no thin header) are refused thin content; unreferenced bases are swept.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import { createLocalGitHost } from '../../../git/local-git-host';
import { prepareRun, BASIS_LAG } from '../../../test-runs/prepare';
import { createRunBaseStore, type RunBaseStore } from '../../../test-runs/store/run-bases';
import {
  createRunContentStore,
  type RunContentStore,
  RunContentTooLarge,
} from '../../../test-runs/store/run-content';
import { enqueueRunJob } from '../../support/executor-job';
import { bundleCheckout } from '../../../executor/content-fetch';
import { createObjectCache, type ObjectCache } from '../../../executor/object-cache';
import { startExecutorApi, type ExecutorApiServer } from '../../support/executor';
import { createMigratedDatabase } from '../../support/postgres';

let pool: Pool;
let server: ExecutorApiServer;
let credential: string;
let bases: RunBaseStore;
let contents: RunContentStore;
const taskQueue = `thin-content-${randomUUID()}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thin-content-'));
const gitRoot = path.join(dir, 'git');
const gitHost = createLocalGitHost({ root: gitRoot });
const repo = { host: 'local', owner: 'acme', name: 'app' };
const MAIN_COMMITS = 200;
/** main's commits, oldest first; `other` forks at main[10] with `secret` and then 40 commits. */
const main: string[] = [];
const other: string[] = [];
let secret = '';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@b',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@b',
    },
  }).trim();

/** One commit of the history below: the file it writes on its branch, after `from` when it forks. */
interface PlannedCommit {
  branch: 'main' | 'other';
  from?: number;
  files: Record<string, string>;
}

/**
 * Writes the commits into the bare repository with ONE `git fast-import` and answers their shas in
 * order. Why not a commit per `git` call: 240 commits were 720 processes forked from this jest worker,
 * about 25 CPU-seconds of the file.
 */
function importHistory(bare: string, commits: readonly PlannedCommit[]): string[] {
  const parts: Buffer[] = [];
  const data = (text: string) => {
    const bytes = Buffer.from(text);
    parts.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
  };
  commits.forEach((c, i) => {
    const first = Object.keys(c.files)[0]!;
    parts.push(
      Buffer.from(
        `commit refs/heads/${c.branch}\nmark :${i + 1}\ncommitter a <a@b> ${1_700_000_000 + i} +0000\n`,
      ),
    );
    data(`${first} ${c.files[first]!.slice(0, 20)}`);
    if (c.from !== undefined) parts.push(Buffer.from(`from :${c.from + 1}\n`));
    for (const [file, body] of Object.entries(c.files)) {
      parts.push(Buffer.from(`M 100644 inline ${file}\n`));
      data(body);
    }
  });
  const marks = path.join(dir, 'marks');
  execFileSync('git', ['fast-import', '--quiet', `--export-marks=${marks}`], {
    cwd: bare,
    input: Buffer.concat(parts),
  });
  const shas = new Map(
    fs
      .readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  return commits.map((_, i) => shas.get(`:${i + 1}`)!);
}

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('thin_content'));
  server = await startExecutorApi({ pool, taskQueue, claimWaitMs: 200 });
  credential = await server.issue();
  bases = createRunBaseStore(pool, { maxBytes: 256 * 1024 * 1024 });
  contents = createRunContentStore(pool, { bases });
  const bare = gitHost.repositoryPath(repo);
  fs.mkdirSync(path.dirname(bare), { recursive: true });
  git(dir, 'init', '--quiet', '--bare', bare);
  const planned: PlannedCommit[] = [];
  for (let i = 0; i < MAIN_COMMITS; i += 1)
    planned.push({
      branch: 'main',
      files: {
        [`f${i % 7}.txt`]: `${i} ${randomBytes(2000).toString('hex')}`,
        // The first commit carries the test config; later commits keep it (fast-import's trees carry on).
        ...(i === 0 ? { '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'true' }) } : {}),
      },
    });
  planned.push({ branch: 'other', from: 10, files: { 'secret.txt': `another PR's secret ${randomUUID()}` } });
  for (let i = 0; i < 40; i += 1)
    planned.push({
      branch: 'other',
      files: { [`o${i % 3}.txt`]: `${i} ${randomBytes(500).toString('hex')}` },
    });
  const shas = importHistory(bare, planned);
  main.push(...shas.slice(0, MAIN_COMMITS));
  secret = shas[MAIN_COMMITS]!;
  other.push(...shas.slice(MAIN_COMMITS + 1));
}, 60_000);

afterAll(async () => {
  await server.close();
  await pool.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function organisation(): Promise<string> {
  const id = randomUUID();
  await pool.query('INSERT INTO organisations (id, slug) VALUES ($1, $2)', [id, `o-${id.slice(0, 8)}`]);
  return id;
}

/**
 * A run prepared by the worker's code and claimed by this test's executor: its job id and token.
 * `withBases: false` prepares it as a worker without bases (before issue 25): a full bundle.
 */
async function prepared(organisationId: string, headSha: string, { withBases = true } = {}) {
  const runId = randomUUID();
  const run = await prepareRun(
    { gitHost, contents, ...(withBases ? { bases } : {}), scratchRoot: path.join(dir, 'scratch') },
    { organisationId, repo, runId, headSha },
  );
  if (run.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(run)}`);
  await enqueueRunJob(pool, { taskQueue, repo, runId, headSha, contentToken: run.contentToken });
  const res = await fetch(`${server.url}/v1/executor/jobs/claim`, {
    method: 'POST',
    headers: auth(credential),
  });
  expect(res.status).toBe(200);
  const job = (await res.json()) as { id: string };
  const { rows } = await pool.query<{ basis_id: string | null; size_bytes: string }>(
    'SELECT basis_id, size_bytes FROM run_contents WHERE test_run_id = $1',
    [runId],
  );
  return { jobId: job.id, runId, basisId: rows[0]!.basis_id, contentBytes: Number(rows[0]!.size_bytes) };
}

const auth = (c: string) => ({ authorization: `Bearer ${c}` });

/** A real cache whose checkouts are recorded (did this run fetch its basis?). */
function recordingCache(root: string, maxBytes = 1024 * 1024 * 1024) {
  const cache = createObjectCache({ root, maxBytes });
  const fetched: boolean[] = [];
  const recording: ObjectCache = {
    size: () => cache.size(),
    async checkout(input) {
      const out = await cache.checkout(input);
      fetched.push(out.basisFetched);
      return out;
    },
  };
  return { cache: recording, fetched };
}

async function checkout(cache: ObjectCache, jobId: string, sha: string): Promise<string> {
  const directory = path.join(dir, 'checkouts', randomUUID(), 'checkout');
  fs.mkdirSync(path.dirname(directory), { recursive: true });
  await bundleCheckout({
    apiUrl: server.url,
    jobId,
    credential,
    maxBytes: 256 * 1024 * 1024,
    cache,
  }).checkout({
    repo,
    sha,
    directory,
  });
  return directory;
}

/** Every object the repository at `at` holds, and those reachable from its HEAD. */
function objects(at: string): { all: string[]; reachable: string[] } {
  const all = git(at, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').sort();
  const reachable = git(at, 'rev-list', '--objects', 'HEAD')
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .sort();
  return { all, reachable };
}

const basisCount = async (organisationId: string) =>
  Number(
    (await pool.query('SELECT count(*) AS n FROM run_bases WHERE organisation_id = $1', [organisationId]))
      .rows[0].n,
  );

test('a second run of the repository stages only a thin bundle, and the executor reuses its cached basis', async () => {
  const org = await organisation();
  const { cache, fetched } = recordingCache(path.join(dir, 'cache-a'));
  const first = await prepared(org, main[MAIN_COMMITS - 6]!);
  expect(first.basisId).not.toBeNull();
  expect(await basisCount(org)).toBe(1);
  const [basis] = (
    await pool.query<{ sha: string; size_bytes: string }>(
      'SELECT sha, size_bytes FROM run_bases WHERE id = $1',
      [first.basisId],
    )
  ).rows;
  // BASIS_LAG first-parent commits behind the tested commit.
  expect(basis!.sha).toBe(main[MAIN_COMMITS - 6 - BASIS_LAG]);
  const one = await checkout(cache, first.jobId, main[MAIN_COMMITS - 6]!);
  expect(git(one, 'rev-parse', 'HEAD')).toBe(main[MAIN_COMMITS - 6]);
  expect(git(one, 'status', '--porcelain')).toBe('');

  const second = await prepared(org, main[MAIN_COMMITS - 1]!);
  expect(second.basisId).toBe(first.basisId);
  expect(await basisCount(org)).toBe(1);
  // The 37 commits since the basis, against the basis's 163: well under half of it.
  expect(second.contentBytes).toBeLessThan(Number(basis!.size_bytes) / 2);
  const two = await checkout(cache, second.jobId, main[MAIN_COMMITS - 1]!);
  expect(git(two, 'rev-parse', 'HEAD')).toBe(main[MAIN_COMMITS - 1]);
  expect(fs.readFileSync(path.join(two, '.railyard', 'merge-queue.json'), 'utf8')).toContain('true');
  expect(fetched).toEqual([true, false]);

  // A cold executor (an empty cache) fetches the basis, then makes the same checkout.
  const cold = recordingCache(path.join(dir, 'cache-cold'));
  const third = await prepared(org, main[MAIN_COMMITS - 1]!);
  const three = await checkout(cold.cache, third.jobId, main[MAIN_COMMITS - 1]!);
  expect(git(three, 'rev-parse', 'HEAD^{tree}')).toBe(git(two, 'rev-parse', 'HEAD^{tree}'));
  expect(cold.fetched).toEqual([true]);
});

test("the run's checkout holds only objects reachable from the tested commit, though the cache holds another branch's", async () => {
  const org = await organisation();
  const { cache } = recordingCache(path.join(dir, 'cache-b'));
  // A run of `other`: its basis (BASIS_LAG behind its tip) holds the secret commit, and enters the cache.
  const otherRun = await prepared(org, other[other.length - 1]!);
  await checkout(cache, otherRun.jobId, other[other.length - 1]!);
  const entries = fs.readdirSync(path.join(dir, 'cache-b', org));
  expect(entries).toHaveLength(1);
  const entry = path.join(dir, 'cache-b', org, entries[0]!);
  git(entry, 'cat-file', '-e', secret); // the cache has it

  const mainRun = await prepared(org, main[MAIN_COMMITS - 1]!);
  const tested = await checkout(cache, mainRun.jobId, main[MAIN_COMMITS - 1]!);
  expect(() => git(tested, 'cat-file', '-e', secret)).toThrow();
  expect(() => git(tested, 'cat-file', '-e', other[0]!)).toThrow();
  const { all, reachable } = objects(tested);
  expect(all).toEqual(reachable);
  // Nothing links the cache in: no alternates, no shared pack files.
  expect(fs.existsSync(path.join(tested, '.git', 'objects', 'info', 'alternates'))).toBe(false);
});

test('the basis is read only by the executor holding the job; an old executor is refused thin content', async () => {
  const org = await organisation();
  const run = await prepared(org, main[MAIN_COMMITS - 2]!);
  const basis = (id: string, c: string, extra: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/executor/jobs/${id}/basis`, { headers: { ...auth(c), ...extra } });

  const mine = await basis(run.jobId, credential);
  expect(mine.status).toBe(200);
  const bytes = Buffer.from(await mine.arrayBuffer());
  expect(bytes.subarray(0, 16).toString()).toMatch(/^# v[23] git bundle/);
  const [row] = (await pool.query('SELECT sha FROM run_bases WHERE id = $1', [run.basisId])).rows;
  expect(mine.headers.get('x-railyard-basis')).toBe(row.sha);

  const another = await basis(run.jobId, await server.issue());
  expect([another.status, await another.text()]).toEqual([
    404,
    `Job ${run.jobId} is not held by this executor: it was reported, retried elsewhere or never yours.`,
  ]);
  const forged = await basis(run.jobId, `rye_${randomBytes(32).toString('base64url')}`);
  expect(forged.status).toBe(401);
  await forged.text();
  const unknown = await basis(randomUUID(), credential);
  expect(unknown.status).toBe(404);
  await unknown.text();

  // An executor older than thin content does not ask for it: a 409 it retries, then fails as its own.
  const old = await fetch(`${server.url}/v1/executor/jobs/${run.jobId}/content`, {
    headers: auth(credential),
  });
  expect(old.status).toBe(409);
  expect(await old.text()).toMatch(/thin bundle on a basis, which this executor does not take/);
  const thin = await fetch(`${server.url}/v1/executor/jobs/${run.jobId}/content`, {
    headers: { ...auth(credential), 'x-railyard-thin-content': '1' },
  });
  expect([thin.status, thin.headers.get('x-railyard-organisation')]).toEqual([200, org]);
  await thin.arrayBuffer();

  // Ended, the run reads neither.
  await contents.drop(run.runId);
  const after = await basis(run.jobId, credential);
  expect(after.status).toBe(404);
  await after.text();
});

test("organisations never share a basis or a cache entry; the cache's bound evicts the least recently used", async () => {
  const [a, b] = [await organisation(), await organisation()];
  const root = path.join(dir, 'cache-lru');
  const unbounded = recordingCache(path.join(dir, 'cache-measure'));
  const runA = await prepared(a, main[MAIN_COMMITS - 1]!);
  await checkout(unbounded.cache, runA.jobId, main[MAIN_COMMITS - 1]!);
  const oneEntry = await unbounded.cache.size();
  expect(oneEntry).toBeGreaterThan(0);

  // Room for one entry and a half: the second organisation's run pushes the first's out.
  const { cache, fetched } = recordingCache(root, Math.floor(oneEntry * 1.5));
  await checkout(cache, (await prepared(a, main[MAIN_COMMITS - 1]!)).jobId, main[MAIN_COMMITS - 1]!);
  const runB = await prepared(b, main[MAIN_COMMITS - 1]!);
  expect(runB.basisId).not.toBe(runA.basisId);
  expect(await basisCount(b)).toBe(1);
  await checkout(cache, runB.jobId, main[MAIN_COMMITS - 1]!);
  expect(
    fs
      .readdirSync(root)
      .filter((n) => n !== 'incoming')
      .sort(),
  ).toEqual([b]);
  expect(await cache.size()).toBeLessThanOrEqual(Math.floor(oneEntry * 1.5));
  // The first organisation's next run fetches its basis again: an extra fetch, nothing worse.
  await checkout(cache, (await prepared(a, main[MAIN_COMMITS - 1]!)).jobId, main[MAIN_COMMITS - 1]!);
  expect(fetched).toEqual([true, true, true]);

  // A bound of 0 keeps nothing between runs: every run fetches its basis.
  const none = recordingCache(path.join(dir, 'cache-none'), 0);
  for (let i = 0; i < 2; i += 1)
    await checkout(none.cache, (await prepared(a, main[MAIN_COMMITS - 1]!)).jobId, main[MAIN_COMMITS - 1]!);
  expect(none.fetched).toEqual([true, true]);
  expect(await none.cache.size()).toBe(0);
});

test('the cache refuses what the API could not have meant: an organisation that is not a UUID, a commit that is no sha', async () => {
  const cache = createObjectCache({ root: path.join(dir, 'cache-refuse'), maxBytes: 1024 });
  const input = {
    organisationId: randomUUID(),
    repo,
    basisSha: 'a'.repeat(40),
    thinBundle: path.join(dir, 'none.bundle'),
    sha: 'b'.repeat(40),
    directory: path.join(dir, 'never'),
    fetchBasis: () => Promise.reject(new Error('not reached')),
  };
  await expect(cache.checkout({ ...input, organisationId: '../../etc' })).rejects.toThrow(/no organisation/);
  await expect(cache.checkout({ ...input, basisSha: 'HEAD~1' })).rejects.toThrow(/invalid basis/);
  expect(fs.existsSync(path.join(dir, 'cache-refuse'))).toBe(false);
});

test('a basis over RAILYARD_RUN_CONTENT_MAX_MB stages nothing; unreferenced old bases are swept, referenced ones kept', async () => {
  const org = await organisation();
  const small = createRunBaseStore(pool, { maxBytes: 1024 });
  await expect(
    prepareRun(
      {
        gitHost,
        contents: createRunContentStore(pool, { bases: small }),
        bases: small,
        scratchRoot: path.join(dir, 'scratch'),
      },
      { organisationId: org, repo, runId: randomUUID(), headSha: main[MAIN_COMMITS - 1]! },
    ),
  ).rejects.toThrow(RunContentTooLarge);
  expect(await basisCount(org)).toBe(0);

  const kept = await prepared(org, main[MAIN_COMMITS - 1]!);
  const gone = await prepared(await organisation(), main[MAIN_COMMITS - 1]!);
  await contents.drop(gone.runId);
  const sweeping = createRunBaseStore(pool, { maxBytes: 1024, retentionMs: 0 });
  await sweeping.sweep();
  const left = await pool.query<{ id: string }>('SELECT id FROM run_bases WHERE id = ANY($1)', [
    [kept.basisId, gone.basisId],
  ]);
  expect(left.rows.map((r) => r.id)).toEqual([kept.basisId]);
  const chunks = await pool.query('SELECT count(*)::int AS n FROM run_basis_chunks WHERE basis_id = $1', [
    gone.basisId,
  ]);
  expect(chunks.rows[0].n).toBe(0);
});

test("a full bundle (an older worker's, or a root commit's) is still cloned by a new executor, and has no basis to fetch", async () => {
  const headSha = main[MAIN_COMMITS - 1]!;
  // What a worker without bases (before issue 25) stages: the whole history.
  const { jobId, runId, basisId } = await prepared(await organisation(), headSha, { withBases: false });
  expect(basisId).toBeNull();
  const { cache, fetched } = recordingCache(path.join(dir, 'cache-full'));
  const checkedOut = await checkout(cache, jobId, headSha);
  expect(git(checkedOut, 'rev-parse', 'HEAD')).toBe(headSha);
  expect(fetched).toEqual([]); // the cache is not used for a full bundle
  const basis = await fetch(`${server.url}/v1/executor/jobs/${jobId}/basis`, { headers: auth(credential) });
  expect([basis.status, await basis.text()]).toEqual([
    404,
    "The run's content is a full bundle: it needs no basis.",
  ]);
  await contents.drop(runId);
});
