/**
 * Preparing a test run for an executor (issue 17): the command comes from the tested commit's
 * `.railyard/merge-queue.json` (so a PR that changes how tests run is tested with its own change), and
 * the commit is staged as run content (store/run-content.ts) for the executor, which has no access to
 * the git root or the mirrors.
 *
 * Rules and invariants:
 * - A commit without the file, or with an invalid one, answers `config_problem` and stages nothing.
 * - The bundle holds the tested commit (checked out detached as HEAD) and its history, nothing else.
 * - The bundle is built in a fresh directory under `scratchRoot`, removed whatever happens.
 * - A bundle over the run-content limit throws RunContentTooLarge (store/run-content.ts), staging
 *   nothing; the activity adapter makes it a failure that is not retried.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepositoryKey, RunCommandResult } from '../contract';
import { gitCommand } from '../executor/git-command';
import { readRepoTestConfig } from '../executor/repo-test-config';
import type { GitHost } from '../git/git-host';
import type { RunContentStore } from './store/run-content';

export type PreparedTestRun =
  | { kind: 'ready'; command: string; junitGlobs?: string[]; contentToken: string }
  | Extract<RunCommandResult, { kind: 'config_problem' }>;

export interface PrepareDeps {
  gitHost: GitHost;
  contents: RunContentStore;
  /** Where bundles are built before they are staged (removed at once). */
  scratchRoot: string;
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
    await deps.gitHost.checkout({ repo: run.repo, sha: run.headSha, directory: checkout });
    const bundlePath = join(scratch, 'content.bundle');
    // HEAD is the tested commit, detached: the bundle holds it and its history, and nothing else.
    await gitCommand(checkout, ['bundle', 'create', '--quiet', bundlePath, 'HEAD']);
    const contentToken = await deps.contents.stage({
      organisationId: run.organisationId,
      runId: run.runId,
      repo: run.repo,
      sha: run.headSha,
      bundlePath,
    });
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
