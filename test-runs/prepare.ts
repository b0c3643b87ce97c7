/**
 * Preparing a test run for an executor (issue 17): the command comes from the tested commit's
 * `.railyard/merge-queue.json` (so a PR that changes how tests run is tested with its own change), and
 * the commit is staged as run content (store/run-content.ts) for the executor, which has no access to
 * the git root or the mirrors.
 *
 * Rules and invariants:
 * - A commit without the file, or with an invalid one, answers `config_problem` and stages nothing.
 * - The content holds the tested commit (HEAD, detached, in a clone with no work tree) and its history, nothing else:
 *   with a base store (issue 25, ADR 0025) it is a thin bundle `HEAD ^<basis>` on a staged basis that
 *   is an ANCESTOR of the tested commit (so every object an executor puts in the run's checkout is
 *   reachable from the tested commit), or a full bundle when the tested commit has no parent or no
 *   base store is given.
 * - The basis is the newest staged one of the repository that is an ancestor within THIN_MAX_COMMITS
 *   and THIN_MAX_BYTES; otherwise a new one is staged BASIS_LAG first-parent commits behind the tested
 *   commit (on the target branch's history in a queue, so later runs share it).
 * - Bundles are built in a fresh directory under `scratchRoot`, removed whatever happens.
 * - A bundle or basis over the run-content limit throws RunContentTooLarge, staging no run content;
 *   the activity adapter makes it a failure that is not retried.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepositoryKey, RunCommandResult } from '../contract';
import { createHardenedGit, type HardenedGit } from '../executor/git-command';
import { readRepoTestConfig } from '../executor/repo-test-config';
import type { GitHost } from '../git/git-host';
import { BasisGone, type RunContentStore } from './store/run-content';
import type { RunBaseStore } from './store/run-bases';
import { createDirectProcessRunner, type ProcessRunner } from '../platform/process-runner';

/**
 * A staged basis is used while the run's delta on it stays under both bounds: beyond them each run
 * stages (and each executor fetches) more than re-basing costs once (one basis, then small deltas).
 * 2,000 commits is a few days of a busy repository's merges; 8 MiB a few seconds of PostgreSQL writes.
 */
export const THIN_MAX_COMMITS = 2_000;
export const THIN_MAX_BYTES = 8 * 1024 * 1024;
/**
 * A new basis is this many first-parent commits behind the tested commit (or its root, when the history
 * is shorter): far enough back to be on the target branch (a queue's test branch is the target tip plus
 * its PRs, one first-parent commit each with merge commits), close enough for a small delta.
 */
export const BASIS_LAG = 32;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export type PreparedTestRun =
  | { kind: 'ready'; command: string; junitGlobs?: string[]; contentToken: string }
  | Extract<RunCommandResult, { kind: 'config_problem' }>;

export interface PrepareDeps {
  gitHost: GitHost;
  contents: RunContentStore;
  /** Staged bases; absent: every run's content is a full bundle (the pre-issue-25 hand-off). */
  bases?: RunBaseStore;
  /** Where bundles are built before they are staged (removed at once). */
  scratchRoot: string;
  /** Runs the bundles' git commands; default: from this process (the worker hands them to its broker). */
  processes?: ProcessRunner;
}

export interface RunToPrepare {
  organisationId: string;
  repo: RepositoryKey;
  runId: string;
  headSha: string;
}

/** The run's command and the token of its staged content, or why the commit cannot be tested. */
export async function prepareRun(deps: PrepareDeps, run: RunToPrepare): Promise<PreparedTestRun> {
  const config = await readRepoTestConfig(deps.gitHost, run.repo, run.headSha);
  switch (config.kind) {
    case 'absent':
      return {
        kind: 'config_problem',
        reason: config.reason,
        detail: 'The tested commit has no .railyard/merge-queue.json and the queue has no requiredStatuses.',
      };
    case 'invalid':
      return { kind: 'config_problem', reason: config.reason, detail: config.detail };
    case 'found':
      break;
  }
  await mkdir(deps.scratchRoot, { recursive: true });
  const scratch = await mkdtemp(join(deps.scratchRoot, `${run.runId}-`));
  try {
    const checkout = join(scratch, 'checkout');
    // No work tree: only bundles are made here, and writing every file of a large repository's tree
    // for each run cost more than the bundles.
    await deps.gitHost.checkout({ repo: run.repo, sha: run.headSha, directory: checkout, workTree: false });
    const git = createHardenedGit(deps.processes ?? createDirectProcessRunner());
    const contentToken = await stageContent(deps, git, run, checkout, scratch);
    return {
      kind: 'ready',
      command: config.config.command,
      ...(config.config.junitGlobs ? { junitGlobs: config.config.junitGlobs } : {}),
      contentToken,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Stages the run's content (thin when it can be) and answers its token. */
async function stageContent(
  deps: PrepareDeps,
  git: HardenedGit,
  run: RunToPrepare,
  checkout: string,
  scratch: string,
): Promise<string> {
  const bundlePath = join(scratch, 'content.bundle');
  const staged = { organisationId: run.organisationId, runId: run.runId, repo: run.repo, sha: run.headSha };
  const bases = deps.bases;
  if (bases) {
    // A basis swept between its choice and the run's content (BasisGone) is chosen (or staged) again once.
    for (let tries = 0; tries < 2; tries += 1) {
      const basisSha = await chooseBasis(bases, git, run, checkout, bundlePath, scratch);
      if (basisSha === null) break;
      try {
        return await deps.contents.stage({ ...staged, bundlePath, basisSha });
      } catch (err) {
        if (!(err instanceof BasisGone)) throw err;
      }
    }
  }
  // HEAD is the tested commit, detached: the bundle holds it and its history, and nothing else.
  await git.run(checkout, ['bundle', 'create', '--quiet', bundlePath, 'HEAD']);
  return deps.contents.stage({ ...staged, bundlePath });
}

/**
 * The basis of the run's thin bundle, which is written to `bundlePath`; null when the tested commit
 * has no parent (a full bundle is all there is).
 */
async function chooseBasis(
  bases: RunBaseStore,
  git: HardenedGit,
  run: RunToPrepare,
  checkout: string,
  bundlePath: string,
  scratch: string,
): Promise<string | null> {
  for (const sha of await bases.candidates(run.organisationId, run.repo)) {
    if (!SHA.test(sha)) continue;
    // Not an ancestor (another branch's, or unknown here): its objects are not the run's to hand out.
    if ((await git.output(checkout, ['merge-base', '--is-ancestor', sha, 'HEAD'])) === null) continue;
    const count = Number((await git.output(checkout, ['rev-list', '--count', `${sha}..HEAD`])) ?? NaN);
    if (!(count <= THIN_MAX_COMMITS)) break;
    if (count === 0) continue; // the tested commit is the basis itself: a bundle needs a new commit
    await thinBundle(git, checkout, bundlePath, sha);
    if ((await stat(bundlePath)).size <= THIN_MAX_BYTES) return sha;
    break; // older candidates are further behind still
  }
  const firstParents =
    (await git.output(checkout, ['rev-list', '--first-parent', `--max-count=${BASIS_LAG + 1}`, 'HEAD'])) ??
    '';
  const chain = firstParents.split('\n').filter((l) => SHA.test(l));
  const basis = chain[chain.length - 1];
  if (chain.length < 2 || basis === undefined) return null;
  const basisPath = join(scratch, 'basis.bundle');
  // A bundle names refs: the basis gets one of its own in the scratch checkout.
  await git.run(checkout, ['update-ref', 'refs/railyard/basis', basis]);
  await git.run(checkout, ['bundle', 'create', '--quiet', basisPath, 'refs/railyard/basis']);
  await bases.stage({
    organisationId: run.organisationId,
    repo: run.repo,
    sha: basis,
    bundlePath: basisPath,
  });
  await rm(basisPath, { force: true });
  await thinBundle(git, checkout, bundlePath, basis);
  return basis;
}

/** The tested commit and what it adds to `basis`: `basis` is the bundle's one prerequisite. */
async function thinBundle(
  git: HardenedGit,
  checkout: string,
  bundlePath: string,
  basis: string,
): Promise<void> {
  await rm(bundlePath, { force: true });
  await git.run(checkout, ['bundle', 'create', '--quiet', bundlePath, 'HEAD', `^${basis}`]);
}
