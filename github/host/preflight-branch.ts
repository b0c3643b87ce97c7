/**
 * The preflight's throw-away test branch on GitHub, written through GitHub's git data API rather than
 * a push from the mirror: the preflight needs no clone of the repository, only one new commit with the
 * target tip's tree (`POST /git/commits`) and a branch on it (`POST /git/refs`). It is deleted like any
 * test branch (deleteBranch).
 *
 * Rules: as on the local host (git/preflight-branch.ts), the commit is new, so checks GitHub holds for
 * the target's tip never count as started on it; GitHub announces the branch as a push, so
 * `on: push: branches: <prefix>**` workflows run on it. Idempotent: a branch already on a commit whose
 * parent is the base (an earlier attempt of the activity) is answered as it is. In draft-PR testing mode
 * a draft PR GitHub refuses with a 4xx a retry cannot change (refusedForGood) is the port's
 * DraftPullRequestRefusedError; a 5xx, a rate limit or a network error is the port's
 * DraftPullRequestUnavailableError (unavailableNow), which the preflight retries within a time bound.
 */
import { PREFLIGHT_COMMIT_MESSAGE } from '../../git/preflight-branch';
import {
  DraftPullRequestRefusedError,
  DraftPullRequestUnavailableError,
  type PreflightBranchInput,
} from '../../git/git-host';
import { GitHubApiError } from '../app/rest-client';
import type { Target } from './remote';

interface CommitWire {
  sha: string;
  tree: { sha: string };
  parents: { sha: string }[];
}

async function readCommit(t: Target, sha: string): Promise<CommitWire> {
  const r = await t.client.request<CommitWire>('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', {
    ...t.params,
    commit_sha: sha,
  });
  return r.data;
}

export async function pushPreflightBranchOnGitHub(
  t: Target,
  input: PreflightBranchInput,
  tipOf: (t: Target, branch: string) => Promise<string | null>,
): Promise<{ sha: string }> {
  const held = await tipOf(t, input.branchName);
  if (held !== null && (await readCommit(t, held)).parents.map((p) => p.sha).join(' ') === input.baseSha)
    return { sha: held };
  const base = await readCommit(t, input.baseSha);
  const made = await t.client.request<CommitWire>('POST /repos/{owner}/{repo}/git/commits', {
    ...t.params,
    message: PREFLIGHT_COMMIT_MESSAGE,
    tree: base.tree.sha,
    parents: [input.baseSha],
  });
  try {
    await t.client.request('POST /repos/{owner}/{repo}/git/refs', {
      ...t.params,
      ref: `refs/heads/${input.branchName}`,
      sha: made.data.sha,
    });
  } catch (err) {
    // A branch of this name made meanwhile by another attempt: it is ours if it holds our commit.
    if (!(err instanceof GitHubApiError && err.status === 422) || (await tipOf(t, input.branchName)) === null)
      throw err;
    return { sha: (await tipOf(t, input.branchName))! };
  }
  return { sha: made.data.sha };
}

/** GitHub's words kept in a refusal: enough to say why, bounded like any detail. */
const MAX_HOST_WORDS = 300;

/**
 * The draft PR's failure as a refusal no retry changes (GitHub's 4xx: 422 draft PRs not available in
 * the repository or a validation failure, 403 the App lacking pull_requests: write, 404), or null for
 * what a retry may fix (5xx, 429 and 403 rate limits, network errors).
 */
export function refusedForGood(err: unknown): DraftPullRequestRefusedError | null {
  if (!(err instanceof GitHubApiError)) return null;
  const { status } = err;
  if (status < 400 || status >= 500 || status === 429) return null;
  const words = (err.reason ?? err.message).slice(0, MAX_HOST_WORDS);
  if (status === 403 && /rate limit/i.test(words)) return null;
  return new DraftPullRequestRefusedError(status, words);
}

/**
 * The draft PR's failure as one a later attempt may not share (5xx, 429 and 403 rate limits, no answer),
 * naming GitHub's status (null: no answer) and words; null for anything else (a refusal, a bug).
 */
export function unavailableNow(err: unknown): DraftPullRequestUnavailableError | null {
  if (!(err instanceof GitHubApiError) || refusedForGood(err) !== null) return null;
  const words = (err.reason ?? err.message.replace(/^.*?: /, '')).slice(0, MAX_HOST_WORDS);
  return new DraftPullRequestUnavailableError(err.status > 0 ? err.status : null, words);
}
