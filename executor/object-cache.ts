/**
 * The executor's object cache (issue 25, ADR 0025): one bare repository per (organisation, repository)
 * holding the bases it fetched, so a run whose content is a thin bundle `<tested> ^<basis>` fetches
 * only that bundle once its basis is here.
 *
 * Invariants:
 * - The cache lives beside the checkouts, never under them: a sandbox binds its run's checkout alone.
 * - An entry is keyed by the organisation the API names for the job (a UUID, checked) and a digest of
 *   the repository's name, so one organisation's entry never serves another's job and no tenant's
 *   name becomes a path.
 * - A run's checkout holds ONLY objects reachable from the tested commit: it is a fresh repository that
 *   fetches the basis (an ancestor of the tested commit, test-runs/prepare.ts) from the entry through
 *   git's transport (pack-objects sends what the basis reaches, nothing else: no hard links, no
 *   alternates) and then the thin bundle. Other bases, branches and PRs of the entry stay out of it.
 * - The thin bundle is verified against the entry (`git bundle verify`: its prerequisite is there)
 *   and a fetched basis must land at the commit the API named.
 * - The cache is bounded by `maxBytes`: after each run, entries no run is using are removed least
 *   recently used first until the rest fit (a bound of 0 keeps nothing: an executor that cannot keep a
 *   cache fetches the basis for every run). An entry holds at most MAX_BASES_PER_ENTRY bases; the next
 *   one starts it afresh (no gc: the old packs go with the entry).
 * - The LRU is global, not shared out per organisation: an organisation's runs can push another's
 *   entries out, and the worst that does is an extra basis fetch for the other's next run (the
 *   pre-issue-25 cost), never a wrong or shared checkout.
 * - Work on one entry (making it, fetching a basis into it, copying a basis out of it, evicting it) is
 *   serialised in this process (an executor runs several jobs at once); what a job then does in its
 *   own checkout (the thin bundle, the checkout) runs beside other jobs. The cache belongs to one
 *   executor process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RepositoryKey } from '../contract';
import { createDirectProcessRunner, type ProcessRunner } from '../platform/process-runner';
import { createHardenedGit, type HardenedGit } from './git-command';

/** The default bound of an executor's object cache (RAILYARD_EXECUTOR_CACHE_MB). */
export const DEFAULT_OBJECT_CACHE_BYTES = 2 * 1024 * 1024 * 1024;
/** Bases kept in one entry: a repository re-bases rarely (prepare.ts), a few cover its live branches. */
export const MAX_BASES_PER_ENTRY = 4;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const DIGEST = /^[0-9a-f]{32}$/;
const USED = 'railyard-used';

export interface ThinCheckout {
  organisationId: string;
  repo: RepositoryKey;
  basisSha: string;
  /** The downloaded thin bundle; the caller removes it. */
  thinBundle: string;
  /** The tested commit, and the checkout to make (must not exist yet). */
  sha: string;
  directory: string;
  /** Downloads the basis's full bundle to `file` (the API's basis route). */
  fetchBasis(file: string): Promise<void>;
}

export interface ObjectCache {
  /** Makes `directory` a checkout of `sha` from the thin bundle and the cached (or fetched) basis. */
  checkout(input: ThinCheckout): Promise<{ basisFetched: boolean }>;
  /** The bytes the cache holds now. */
  size(): Promise<number>;
}

export function createObjectCache(opts: {
  root: string;
  maxBytes: number;
  /** Runs its git commands; default: from this process. */
  processes?: ProcessRunner;
}): ObjectCache {
  const git = createHardenedGit(opts.processes ?? createDirectProcessRunner());
  const locks = new Map<string, Promise<unknown>>();
  const busy = new Set<string>();

  async function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = locks.get(key) ?? Promise.resolve();
    const mine = before
      .catch(() => undefined)
      .then(async () => {
        busy.add(key);
        try {
          return await work();
        } finally {
          busy.delete(key);
        }
      });
    locks.set(key, mine);
    try {
      return await mine;
    } finally {
      if (locks.get(key) === mine) locks.delete(key);
    }
  }

  async function evict(): Promise<void> {
    const entries: { dir: string; used: number; bytes: number }[] = [];
    for (const org of await readdir(opts.root).catch(() => [] as string[])) {
      if (!UUID.test(org)) continue;
      for (const name of await readdir(join(opts.root, org)).catch(() => [] as string[])) {
        if (!DIGEST.test(name)) continue;
        const dir = join(opts.root, org, name);
        const used = await stat(join(dir, USED)).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        entries.push({ dir, used, bytes: await treeBytes(dir) });
      }
    }
    let total = entries.reduce((sum, e) => sum + e.bytes, 0);
    for (const entry of entries.sort((a, b) => a.used - b.used)) {
      if (total <= opts.maxBytes) return;
      if (busy.has(entry.dir)) continue;
      // Through the entry's lock: a job that starts on it meanwhile waits, then makes it again.
      await serialised(entry.dir, () => rm(entry.dir, { recursive: true, force: true }));
      // The organisation's folder goes with its last entry (it fails, harmlessly, while others are left).
      await rmdir(dirname(entry.dir)).catch(() => undefined);
      total -= entry.bytes;
    }
  }

  return {
    async checkout(input) {
      if (!UUID.test(input.organisationId))
        throw new Error(
          `the API named no organisation for the job's cache: ${input.organisationId.slice(0, 40)}`,
        );
      if (!SHA.test(input.basisSha) || !SHA.test(input.sha))
        throw new Error(`the API named an invalid basis commit: ${input.basisSha.slice(0, 80)}`);
      const entry = join(opts.root, input.organisationId, repositoryDigest(input.repo));
      let basisFetched = false;
      const dir = input.directory;
      // The entry's lock covers what reads or makes the entry: the basis, and its copy into the run's
      // checkout. The rest touches only that checkout, so the jobs of one repository overlap there.
      await serialised(entry, async () => {
        basisFetched = await ensureBasis(git, entry, join(opts.root, 'incoming'), input);
        await git.run(entry, ['bundle', 'verify', '--quiet', input.thinBundle]);
        await mkdir(dir);
        // No template: nothing (sample hooks included) but what the run's commit holds.
        await git.run(dir, ['init', '--quiet', '--template=']);
        // Through git's transport, not a local clone: only what the basis reaches is copied.
        await git.run(dir, [
          'fetch',
          '--quiet',
          '--no-tags',
          '--',
          entry,
          `refs/bases/${input.basisSha}:refs/railyard/basis`,
        ]);
        const now = new Date();
        await utimes(join(entry, USED), now, now);
      });
      await git.run(dir, [
        'fetch',
        '--quiet',
        '--no-tags',
        '--',
        input.thinBundle,
        'HEAD:refs/railyard/tested',
      ]);
      await git.run(dir, ['checkout', '--quiet', '--detach', input.sha]);
      await git.run(dir, ['update-ref', '-d', 'refs/railyard/basis']);
      await git.run(dir, ['update-ref', '-d', 'refs/railyard/tested']);
      await evict();
      return { basisFetched };
    },
    async size() {
      return treeBytes(opts.root);
    },
  };
}

/** True when the basis had to be fetched into the entry (created when missing). */
async function ensureBasis(
  git: HardenedGit,
  entry: string,
  incoming: string,
  input: ThinCheckout,
): Promise<boolean> {
  const ref = `refs/bases/${input.basisSha}`;
  if (await exists(join(entry, USED))) {
    if ((await git.output(entry, ['rev-parse', '--verify', '--quiet', ref])) !== null) return false;
    const held = (await git.output(entry, ['for-each-ref', '--format=%(refname)', 'refs/bases/'])) ?? '';
    if (held.split('\n').filter(Boolean).length >= MAX_BASES_PER_ENTRY)
      await rm(entry, { recursive: true, force: true });
  }
  if (!(await exists(join(entry, USED)))) {
    await rm(entry, { recursive: true, force: true });
    await mkdir(entry, { recursive: true });
    await git.run(entry, ['init', '--quiet', '--bare', '--template=']);
    // Written last: an entry without it is half made and is made again.
    await writeFile(join(entry, USED), '');
  }
  await mkdir(incoming, { recursive: true });
  const file = join(incoming, `${randomUUID()}.bundle`);
  try {
    await input.fetchBasis(file);
    await git.run(entry, ['bundle', 'verify', '--quiet', file]);
    await git.run(entry, ['fetch', '--quiet', '--no-tags', '--', file, `refs/railyard/basis:${ref}`]);
  } finally {
    await rm(file, { force: true });
  }
  const landed = ((await git.output(entry, ['rev-parse', '--verify', '--quiet', ref])) ?? '').trim();
  if (landed !== input.basisSha) {
    await git.run(entry, ['update-ref', '-d', ref]).catch(() => undefined);
    throw new Error(`the basis bundle holds ${landed.slice(0, 64) || 'nothing'}, not ${input.basisSha}`);
  }
  return true;
}

function repositoryDigest(repo: RepositoryKey): string {
  return createHash('sha256').update(`${repo.host}\0${repo.owner}\0${repo.name}`).digest('hex').slice(0, 32);
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** The bytes of the files under `dir` (symbolic links not followed). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const p = join(dir, name);
    const s = await lstat(p).catch(() => null);
    if (!s) continue;
    total += s.isDirectory() ? await treeBytes(p) : s.size;
  }
  return total;
}
