/**
 * Checks an `x-forked-workflow-run-id` (README "Fork pull requests"). Trunk's merge-action sends the
 * GitHub Actions run id instead of an API key when it runs for a PR from a fork (forks get no
 * secrets); Trunk then accepts setImpactedTargets if the run is a fork's workflow run in progress
 * whose sha is `pr.sha` (trunk-compat §0). railyard asks GitHub, through the App's installation that
 * covers the repository:
 *
 * 1. `GET /repos/{o}/{r}/actions/runs/{id}`: the run exists in this repository, was started by a
 *    `pull_request` event, from another repository than this one (a fork), is not completed, and its
 *    `head_sha` is `pr.sha`. When GitHub lists the run's PRs (it does not for forks), `pr.number` must
 *    be among them.
 * 2. `GET /repos/{o}/{r}/pulls/{n}`: the PR is open and its head is `pr.sha`, so the run's commit is
 *    this PR's current head.
 *
 * Invariants: at most two REST calls per request, both within `deadlineMs`; a refusal is one sentence
 * naming what did not match (no token, no GitHub body); GitHub refusing the App (403: no Actions: read)
 * is `not_permitted` and GitHub being unreachable `unavailable`, never an acceptance.
 */
import type { RepositoryKey } from '../../contract';
import { GitHubApiError, type GitHubClients } from '../app/rest-client';

export interface ForkedRunClaim {
  installationId: number;
  repo: RepositoryKey;
  runId: number;
  pr: { number: number; sha: string };
}

export type ForkedRunVerdict =
  | { kind: 'accepted' }
  /** `unknownRun`: the run does not exist in the repository (callers may remember that; see fork-run-budget.ts). */
  | { kind: 'refused'; reason: string; unknownRun?: true }
  /** GitHub refused the App itself (403: the installation lacks Actions: read). */
  | { kind: 'not_permitted' }
  | { kind: 'unavailable'; reason: string };

export interface ForkedRunVerifier {
  verify(claim: ForkedRunClaim): Promise<ForkedRunVerdict>;
}

interface WorkflowRun {
  event: string;
  status: string | null;
  head_sha: string;
  repository: { id: number };
  head_repository: { id: number } | null;
  pull_requests: { number: number }[] | null;
}

interface PullRequest {
  state: string;
  head: { sha: string };
}

const DEFAULT_DEADLINE_MS = 10_000;

export function createForkedRunVerifier(
  clients: GitHubClients,
  opts: { deadlineMs?: number } = {},
): ForkedRunVerifier {
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;

  async function check(claim: ForkedRunClaim): Promise<ForkedRunVerdict> {
    const { repo, runId, pr } = claim;
    const refused = (reason: string): ForkedRunVerdict => ({ kind: 'refused', reason });
    const rest = await clients.forInstallation(claim.installationId);
    const where = { owner: repo.owner, repo: repo.name };
    const run = await found(() =>
      rest.request<WorkflowRun>('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
        ...where,
        run_id: runId,
      }),
    );
    if (!run)
      return {
        kind: 'refused',
        reason: `Workflow run ${runId} does not exist in ${repo.owner}/${repo.name}.`,
        unknownRun: true,
      };
    if (run.event !== 'pull_request')
      return refused(`Workflow run ${runId} was not started by a pull_request event.`);
    if (!run.head_repository || run.head_repository.id === run.repository.id)
      return refused(`Workflow run ${runId} is not a run of a pull request from a fork.`);
    if (run.status === 'completed')
      return refused(`Workflow run ${runId} has completed; only a run in progress can submit.`);
    if (!sameSha(run.head_sha, pr.sha)) return refused(`Workflow run ${runId} did not run pr.sha.`);
    const listed = run.pull_requests ?? [];
    if (listed.length > 0 && !listed.some((p) => p.number === pr.number))
      return refused(`Workflow run ${runId} is not a run of pull request #${pr.number}.`);
    const pull = await found(() =>
      rest.request<PullRequest>('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        ...where,
        pull_number: pr.number,
      }),
    );
    if (!pull) return refused(`Pull request #${pr.number} does not exist in ${repo.owner}/${repo.name}.`);
    if (pull.state !== 'open') return refused(`Pull request #${pr.number} is not open.`);
    if (!sameSha(pull.head.sha, pr.sha))
      return refused(`pr.sha is not the head of pull request #${pr.number}.`);
    return { kind: 'accepted' };
  }

  return {
    async verify(claim) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<ForkedRunVerdict>((resolve) => {
        timer = setTimeout(
          () => resolve({ kind: 'unavailable', reason: 'GitHub did not answer in time' }),
          deadlineMs,
        );
      });
      try {
        return await Promise.race([
          check(claim).catch((err: unknown): ForkedRunVerdict => {
            if (err instanceof GitHubApiError && err.status === 403) return { kind: 'not_permitted' };
            return {
              kind: 'unavailable',
              reason:
                err instanceof GitHubApiError
                  ? `GitHub answered ${err.status}`
                  : 'GitHub could not be reached',
            };
          }),
          late,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The answer's data, or null for GitHub's 404 (missing, or not visible to the installation). */
async function found<T>(call: () => Promise<{ data: T }>): Promise<T | null> {
  try {
    return (await call()).data;
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) return null;
    throw err;
  }
}

const sameSha = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
