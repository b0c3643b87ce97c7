/**
 * The preflight's activities (workflows/preflight): push the throw-away test branch, read which checks
 * the host holds for its commit, delete it. Each is idempotent (the port guarantees it) and heartbeats.
 *
 * Rules:
 * - Nothing is written to a repository the queue's organisation does not own (ADR 0006): the API
 *   checked it already; this covers any path that reaches the worker without the API.
 * - The required checks are the queue's requiredStatuses, else those the host requires of the target
 *   branch (GitHub: .trunk/trunk.yaml, then branch protection), read before anything is pushed; a queue
 *   that names none on a host without checks runs its own command (`no_checks`), and nothing is pushed.
 * - In draft-PR testing mode the branch also gets a draft PR into the target (the host opens it, and
 *   deletes the branch again if it cannot), closed when removePreflightBranch deletes the branch; the
 *   answer names it. A draft PR the host refuses for good (DraftPullRequestRefusedError) is an answer
 *   (`problem`, the host's words and what to change), not a failure retried five times. One the host
 *   could not open now (DraftPullRequestUnavailableError: 5xx, rate limit, no answer) is tried again
 *   with a doubling pause while the time bound (`draftRetry.budgetMs`, 60 s) allows; then the answer
 *   is `problem`, naming the host's last status, and nothing is left on the host.
 * - Problems a retry cannot fix (no target branch, no or invalid required checks) are answers
 *   (`problem`), not failures; an invalid name from a request is a non-retryable failure.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { repositoryLabel, type PreflightResult, type QueueKey, type RepositoryKey } from '../contract';
import {
  DraftPullRequestRefusedError,
  DraftPullRequestUnavailableError,
  type GitHost,
  type PreflightBranchInput,
  type PreflightBranchPush,
} from '../git/git-host';
import { InvalidGitNameError, assertValid, checkBranchName } from '../git/names';
import { preflightBranchName } from '../git/preflight-branch';
import type { RepositoryOwnership } from '../stores/repository-owners';
import { heartbeating } from './heartbeat';

const HEARTBEAT_MS = 1_000;

/**
 * How long a draft PR the host cannot open now is tried again: well inside the activity's 2 minutes
 * (workflows/preflight), which one more attempt and its client's own retries must also fit in.
 */
export interface DraftRetry {
  /** No attempt starts after this long from the first (default 60 s). */
  budgetMs: number;
  /** The first pause; each next one doubles, up to 15 s (default 1 s). */
  firstDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

const DRAFT_RETRY: DraftRetry = {
  budgetMs: 60_000,
  firstDelayMs: 1_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};
const MAX_DRAFT_DELAY_MS = 15_000;

export interface PreflightStartInput {
  key: QueueKey;
  requiredStatuses: string[];
  testBranchPrefix: string | null;
  /** Unique per preflight (the workflow's run id): the branch is `<prefix>preflight/<id>`. */
  id: string;
  /** Draft-PR testing mode: also open a draft PR from the branch into the target (hosts with PRs). */
  draftPullRequest?: boolean;
}

export type PreflightStart =
  | {
      kind: 'pushed';
      branch: string;
      sha: string;
      required: string[];
      /** Whether the host keeps CI results (read them); false: statuses come through the API. */
      hostHasChecks: boolean;
      /** The prefix the branch is under (deleting it checks it). */
      prefix: string;
      /** Draft-PR testing mode: the branch's draft PR into the target. */
      draftPullRequest?: { number: number; url: string };
    }
  | Extract<PreflightResult, { kind: 'no_checks' | 'problem' }>;

/** The answer when the host refused the branch's draft PR: what it said, what it means, what to change. */
function draftRefusedSentence(
  err: DraftPullRequestRefusedError,
  targetBranch: string,
  label: string,
): string {
  const said = err.hostSays.replace(/\.$/, '');
  return (
    `The host refused the preflight's draft pull request into ${targetBranch} of ${label} (${err.status}: ${said}), ` +
    "so the queue's test runs in draft-PR testing mode (createPrsForTestingBranches) would be refused too: " +
    "allow draft pull requests in the repository and give railyard's app pull_requests: write, or turn " +
    'createPrsForTestingBranches off; then run the preflight again. Its test branch was deleted again.'
  );
}

/** The answer when the host kept failing to open the draft PR for the whole bound: its last status. */
function draftUnavailableSentence(
  err: DraftPullRequestUnavailableError,
  attempts: number,
  waitedMs: number,
  targetBranch: string,
  label: string,
): string {
  const said = err.hostSays.replace(/\.$/, '');
  const last = err.status === null ? `no answer (${said})` : `${err.status} (${said})`;
  return (
    `The host did not open the preflight's draft pull request into ${targetBranch} of ${label}: ` +
    `${attempts} attempts over ${Math.round(waitedMs / 1000)} s failed, the last with ${last}. ` +
    'Its test branch was deleted again. The host is having trouble, not your settings: run the preflight again later.'
  );
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidGitNameError)
      throw ApplicationFailure.nonRetryable(err.message, 'InvalidGitName');
    throw err;
  }
}

export function createPreflightActivities(deps: {
  gitHost: GitHost;
  ownership: RepositoryOwnership;
  draftRetry?: Partial<DraftRetry>;
}) {
  const { gitHost } = deps;
  const retry: DraftRetry = { ...DRAFT_RETRY, ...deps.draftRetry };

  /**
   * Pushes the branch (with its draft PR); a draft PR the host cannot open now is tried again, each
   * pause twice the last, until the bound: then that failure, with how many attempts over how long.
   */
  async function pushWithRetries(
    input: PreflightBranchInput,
  ): Promise<
    | { kind: 'pushed'; pushed: PreflightBranchPush }
    | { kind: 'unavailable'; err: DraftPullRequestUnavailableError; attempts: number; waitedMs: number }
  > {
    const started = retry.now();
    let delay = retry.firstDelayMs;
    for (let attempts = 1; ; attempts++) {
      try {
        return { kind: 'pushed', pushed: await gitHost.pushPreflightBranch(input) };
      } catch (err) {
        if (!(err instanceof DraftPullRequestUnavailableError)) throw err;
        const waitedMs = retry.now() - started;
        if (waitedMs + delay > retry.budgetMs) return { kind: 'unavailable', err, attempts, waitedMs };
        await retry.sleep(delay);
        delay = Math.min(delay * 2, MAX_DRAFT_DELAY_MS);
      }
    }
  }

  async function required(input: PreflightStartInput, tip: string, hasChecks: boolean) {
    const { repo, targetBranch } = input.key;
    if (input.requiredStatuses.length > 0)
      return { kind: 'found' as const, contexts: input.requiredStatuses };
    if (!hasChecks) return { kind: 'no_checks' as const };
    const found = await gitHost.requiredChecks(repo, targetBranch, tip);
    if (found === null) return { kind: 'no_checks' as const };
    switch (found.kind) {
      case 'found':
        return { kind: 'found' as const, contexts: found.contexts };
      case 'none':
        return {
          kind: 'problem' as const,
          detail: `No required checks for ${targetBranch}: set the queue's requiredStatuses, list them under merge.required_statuses in .trunk/trunk.yaml, or require status checks on ${targetBranch}; then run the preflight again.`,
        };
      case 'invalid':
        return { kind: 'problem' as const, detail: found.detail };
    }
  }

  async function startPreflight(input: PreflightStartInput): Promise<PreflightStart> {
    return guard(async () => {
      const { repo, targetBranch, organisationId } = input.key;
      const label = repositoryLabel(repo);
      if (!(await deps.ownership.owns(organisationId, repo)))
        return {
          kind: 'problem',
          detail: `Repository ${label} does not belong to this queue's organisation; nothing was pushed.`,
        };
      const prefix = input.testBranchPrefix || gitHost.testBranchPrefix(repo);
      assertValid('test branch prefix', checkBranchName(`${prefix}x`));
      const tip = await gitHost.readBranchTip(repo, targetBranch);
      if (tip.kind === 'not_found')
        return {
          kind: 'problem',
          detail:
            tip.what === 'repository'
              ? `Repository ${label} was not found on its host; nothing was pushed.`
              : `Branch ${targetBranch} does not exist in ${label}; push it first, then run the preflight again.`,
        };
      const hasChecks = await gitHost.hasChecks(repo);
      const req = await required(input, tip.sha, hasChecks);
      if (req.kind === 'no_checks')
        return {
          kind: 'no_checks',
          detail: `The queue for ${targetBranch} names no requiredStatuses and ${label}'s host keeps no CI results, so the queue runs its own test command: there is no CI check to wait for.`,
        };
      if (req.kind === 'problem') return req;
      const branch = preflightBranchName(prefix, input.id);
      let pushed: PreflightBranchPush;
      try {
        const tried = await pushWithRetries({
          repo,
          baseSha: tip.sha,
          branchName: branch,
          branchPrefix: prefix,
          ...(input.draftPullRequest ? { draftPullRequestInto: targetBranch } : {}),
        });
        if (tried.kind === 'unavailable')
          return {
            kind: 'problem',
            detail: draftUnavailableSentence(tried.err, tried.attempts, tried.waitedMs, targetBranch, label),
          };
        pushed = tried.pushed;
      } catch (err) {
        if (err instanceof DraftPullRequestRefusedError)
          return { kind: 'problem', detail: draftRefusedSentence(err, targetBranch, label) };
        throw err;
      }
      return {
        kind: 'pushed',
        branch,
        sha: pushed.sha,
        required: req.contexts,
        hostHasChecks: hasChecks,
        prefix,
        ...(pushed.draftPullRequest ? { draftPullRequest: pushed.draftPullRequest } : {}),
      };
    });
  }

  /** The names of every check and status the host holds for `sha`; [] from hosts without checks. */
  async function readPreflightChecks(input: { repo: RepositoryKey; sha: string }): Promise<string[]> {
    return guard(async () => {
      const reports = await gitHost.readChecks(input.repo, input.sha);
      return [...new Set((reports ?? []).map((r) => r.context))];
    });
  }

  async function removePreflightBranch(input: { repo: RepositoryKey; branch: string; prefix: string }) {
    await guard(() => gitHost.deleteBranch(input.repo, input.branch, input.prefix));
  }

  return {
    startPreflight: heartbeating(startPreflight, HEARTBEAT_MS),
    readPreflightChecks: heartbeating(readPreflightChecks, HEARTBEAT_MS),
    removePreflightBranch: heartbeating(removePreflightBranch, HEARTBEAT_MS),
  };
}

export type PreflightActivities = ReturnType<typeof createPreflightActivities>;
