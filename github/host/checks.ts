/**
 * The results CI reported for one commit on GitHub, read from both places GitHub keeps them: check
 * runs (GitHub Actions and other Apps) and commit statuses (older integrations), as the queue's
 * CommitStatusReport list.
 *
 * Rules:
 * - A check run's context is its name; a status's context is its `context`. When both report the same
 *   context, the check run decides (GitHub's branch protection reads them the same way).
 * - A completed check run with conclusion success, neutral or skipped is `success`; any other
 *   conclusion (failure, cancelled, timed_out, action_required, stale, startup_failure) is `failure`;
 *   a check run not yet completed is `pending`. Of several runs with one name, the newest (highest id)
 *   counts, as a re-run replaces the earlier one.
 * - Reads are bounded (MAX_PAGES pages of 100); a commit with more results than that is judged on the
 *   ones read, which can only leave a required context pending, never pass one.
 */
import type { CommitStatusReport } from '../../contract';
import type { GitHubRest } from '../app/rest-client';

const MAX_PAGES = 5;

export interface CheckRunWire {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  details_url?: string | null;
  html_url?: string | null;
  output?: { title?: string | null; summary?: string | null } | null;
}

export interface StatusWire {
  context: string;
  state: string;
  target_url?: string | null;
  description?: string | null;
}

/** Pure: the reports for one commit from its check runs and its latest statuses. */
export function reportsOf(
  sha: string,
  checkRuns: CheckRunWire[],
  statuses: StatusWire[],
): CommitStatusReport[] {
  const byContext = new Map<string, CommitStatusReport>();
  for (const s of statuses) {
    const state = s.state === 'success' || s.state === 'failure' || s.state === 'error' ? s.state : 'pending';
    byContext.set(s.context, {
      sha,
      context: s.context,
      state,
      url: s.target_url ?? null,
      description: s.description ?? null,
    });
  }
  const newest = new Map<string, CheckRunWire>();
  for (const run of checkRuns) {
    const held = newest.get(run.name);
    if (!held || run.id > held.id) newest.set(run.name, run);
  }
  for (const run of newest.values()) {
    byContext.set(run.name, {
      sha,
      context: run.name,
      state: checkRunState(run),
      url: run.details_url ?? run.html_url ?? null,
      description: run.output?.title ?? run.conclusion ?? run.status,
    });
  }
  return [...byContext.values()];
}

function checkRunState(run: CheckRunWire): CommitStatusReport['state'] {
  if (run.status !== 'completed') return 'pending';
  switch (run.conclusion) {
    case 'success':
    case 'neutral':
    case 'skipped':
      return 'success';
    default:
      return 'failure';
  }
}

export async function readCommitChecks(
  client: GitHubRest,
  repo: { owner: string; name: string },
  sha: string,
): Promise<CommitStatusReport[]> {
  const checkRuns: CheckRunWire[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await client.request<{ total_count: number; check_runs: CheckRunWire[] }>(
      'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
      { owner: repo.owner, repo: repo.name, ref: sha, per_page: 100, page },
    );
    checkRuns.push(...r.data.check_runs);
    if (r.data.check_runs.length < 100 || checkRuns.length >= r.data.total_count) break;
  }
  // The combined status holds the latest status of each context.
  const combined = await client.request<{ statuses: StatusWire[] }>(
    'GET /repos/{owner}/{repo}/commits/{ref}/status',
    { owner: repo.owner, repo: repo.name, ref: sha, per_page: 100 },
  );
  return reportsOf(sha, checkRuns, combined.data.statuses);
}
