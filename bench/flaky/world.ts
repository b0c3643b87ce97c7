/**
 * The seeded test world of the flaky benchmark (flaky-detection.md §6, scaled to 10M results):
 * `repos` repositories of equal size, 2% flaky tests (failing 1–30% of the time), 0.2% broken
 * (failing 97%), 1% always skipped, the rest always passing. Each repository's tests are split into
 * shards; one CI job runs one shard and uploads one JUnit file. Jobs run per commit (all shards), on a
 * realistic branch mix: 70% pull requests, 25% main, 5% merge-queue branches. A failing test is retried
 * once in half of the jobs, which makes ordered attempts. Same seed, same world, same uploads.
 */
import { bernoulli, type Rng, seededRng } from '../simulate/rng';

export type TestKind = 'healthy' | 'flaky' | 'broken' | 'skipped';

export interface WorldTest {
  readonly classname: string;
  readonly name: string;
  readonly file: string;
  readonly kind: TestKind;
  readonly failRate: number;
  /** Index into FAILURE_TEMPLATES; flaky tests alternate between two. */
  readonly templates: readonly [number, number];
}

export interface WorldRepo {
  readonly name: string;
  readonly shards: readonly (readonly WorldTest[])[];
}

export interface WorldOptions {
  readonly tests: number;
  readonly repos: number;
  readonly shardSize: number;
  readonly seed: number;
}

export const FAILURE_TEMPLATES = Array.from(
  { length: 1000 },
  (_, i) =>
    [
      `expected ${i} to equal ${i + 1}`,
      `Timeout of ${1000 + i}ms exceeded waiting for service-${i % 37}`,
      `ECONNRESET while calling http://svc-${i % 53}.internal:${8000 + (i % 100)}/v1/items`,
      `AssertionError: snapshot ${i} does not match (3 lines differ)`,
    ][i % 4]!,
);

export function buildWorld(options: WorldOptions): WorldRepo[] {
  const rng = seededRng(options.seed);
  const perRepo = Math.ceil(options.tests / options.repos);
  return Array.from({ length: options.repos }, (_, r) => {
    const tests = Array.from({ length: perRepo }, (_, i) => worldTest(rng, r, i));
    const shards: WorldTest[][] = [];
    for (let i = 0; i < tests.length; i += options.shardSize)
      shards.push(tests.slice(i, i + options.shardSize));
    return { name: `service-${r}`, shards };
  });
}

function worldTest(rng: Rng, repo: number, i: number): WorldTest {
  const roll = rng.next();
  const kind: TestKind =
    roll < 0.02 ? 'flaky' : roll < 0.022 ? 'broken' : roll < 0.032 ? 'skipped' : 'healthy';
  const failRate = kind === 'flaky' ? 0.01 + rng.next() * 0.29 : kind === 'broken' ? 0.97 : 0;
  const module = Math.floor(i / 25);
  const template = Math.floor(rng.next() * FAILURE_TEMPLATES.length);
  return {
    classname: `pkg${repo}.module${module}`,
    name: `test case ${i} handles input variant ${i % 7}`,
    file: `src/module${module}/case${i % 25}.test.ts`,
    kind,
    failRate,
    templates: [template, (template + 1 + Math.floor(rng.next() * 10)) % FAILURE_TEMPLATES.length],
  };
}

export type BranchKind = 'pr' | 'main' | 'merge_queue';

export interface Job {
  readonly repo: WorldRepo;
  readonly shard: number;
  readonly uploadId: string;
  readonly commitSha: string;
  readonly branch: string;
  readonly prNumber?: number;
  /** Simulated time of the upload. */
  readonly at: Date;
}

/** One attempt outcome: P, F (with a failure template) or S. */
export type Attempt =
  { readonly outcome: 'P' } | { readonly outcome: 'S' } | { readonly outcome: 'F'; readonly message: string };

export function runTest(rng: Rng, test: WorldTest): Attempt[] {
  if (test.kind === 'skipped') return [{ outcome: 'S' }];
  const once = (): Attempt =>
    bernoulli(rng, test.failRate)
      ? { outcome: 'F', message: FAILURE_TEMPLATES[test.templates[bernoulli(rng, 0.7) ? 0 : 1]]! }
      : { outcome: 'P' };
  const first = once();
  if (first.outcome !== 'F' || !bernoulli(rng, 0.5)) return [first];
  return [first, once()];
}

/**
 * Jobs in time order over `days` ending at `end`: pipelines (one commit, every shard of one repo)
 * until about `targetResults` attempts have been produced (the caller counts, this only paces).
 * `uploadPrefix` keeps a second load's upload ids apart from the first's (an upload id is idempotent).
 */
export function* jobs(
  world: readonly WorldRepo[],
  options: { seed: number; days: number; end: Date; pipelines: number; uploadPrefix?: string },
): Generator<Job> {
  const rng = seededRng(options.seed + 1);
  const start = options.end.getTime() - options.days * 86_400_000;
  const step = (options.days * 86_400_000) / options.pipelines;
  let nextPr = 1000;
  for (let p = 0; p < options.pipelines; p += 1) {
    const repo = world[Math.floor(rng.next() * world.length)]!;
    const roll = rng.next();
    const kind: BranchKind = roll < 0.7 ? 'pr' : roll < 0.95 ? 'main' : 'merge_queue';
    const commitSha = hex(rng, 40);
    const prNumber = kind === 'main' ? undefined : nextPr - Math.floor(rng.next() * 40);
    nextPr += kind === 'pr' && bernoulli(rng, 0.3) ? 1 : 0;
    const branch =
      kind === 'main'
        ? 'main'
        : kind === 'pr'
          ? `feature/pr-${prNumber}`
          : `trunk-merge/pr-${prNumber}/${hex(rng, 8)}`;
    const at = start + p * step;
    for (let shard = 0; shard < repo.shards.length; shard += 1) {
      yield {
        repo,
        shard,
        uploadId: `${options.uploadPrefix ?? ''}pipeline-${p}-shard-${shard}`,
        commitSha,
        branch,
        ...(prNumber === undefined ? {} : { prNumber }),
        at: new Date(at + shard * 1000),
      };
    }
  }
}

function hex(rng: Rng, length: number): string {
  let out = '';
  while (out.length < length)
    out += Math.floor(rng.next() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
}
