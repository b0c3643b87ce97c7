/**
 * Draft-PR testing mode (a queue's `createPrsForTestingBranches`, Trunk's setting of the same name): a
 * draft PR from each test branch into the queue's target branch, so CI that runs only on
 * `pull_request` events tests the branch too. railyard opens it after pushing the branch, closes it
 * before deleting the branch when the run ends, and the queue's reconciliation closes the ones a run
 * no longer in progress left behind (docs/github.md "Draft-PR testing mode").
 *
 * Rules and invariants:
 * - railyard's test PRs are recognised by all of: the head branch is in the repository itself (never a
 *   fork) and under the queue's test-branch prefix, the author is a bot (the App), and the body holds
 *   TEST_PR_MARKER. Nothing else is ever closed through here, whatever its branch is called.
 * - Opening is idempotent: an open PR from the branch into the target is reused (an activity may run
 *   twice, or two attempts may race: GitHub's 422 "already exists" is answered by reading it again).
 *   A branch with no commits over the target (GitHub's 422 "No commits between") gets no PR: there is
 *   nothing for CI to compare, and push-triggered CI still sees the branch.
 * - Closing is idempotent: a PR already closed (or marked merged by GitHub because the target reached
 *   its head) is left alone.
 * - Listing is bounded (MAX_PAGES pages of 100 open PRs into the target), so a repository with very many
 *   open PRs costs a bounded number of requests per reconciliation.
 */
import { checkBranchName } from '../../git/names';
import { GitHubApiError, type GitHubRest } from '../app/rest-client';

/** In the body of every test PR: how railyard tells its own test PRs from anyone else's. */
export const TEST_PR_MARKER = '<!-- railyard:test-run -->';

const PER_PAGE = 100;
const MAX_PAGES = 10;

/** The run a test PR belongs to and the PRs its branch applies, in queue order. */
export interface TestPullRequestRun {
  runId: string;
  prs: number[];
}

/** A PR railyard opened from one of its test branches, and the run that branch is of. */
export interface OpenTestPullRequest {
  number: number;
  branchName: string;
  runId: string;
}

/** The fields of GitHub's pull-request object this module reads. */
interface PullWire {
  number: number;
  html_url: string;
  state: string;
  body: string | null;
  user: { login: string; type: string } | null;
  head: { ref: string; repo: { full_name: string } | null };
  base: { ref: string; repo: { full_name: string } };
}

/** Title and body of a run's test PR (the title names the run, so GitHub's list tells runs apart). */
export function testPullRequestText(
  run: TestPullRequestRun,
  targetBranch: string,
): { title: string; body: string } {
  const prs = run.prs.map((n) => `#${n}`).join(', ');
  // The preflight's branch (no PRs): it only shows whether the required checks start on a test PR.
  if (run.prs.length === 0)
    return {
      title: `railyard preflight (${run.runId})`,
      body: [
        `This draft pull request is railyard's preflight for the merge queue of \`${targetBranch}\`: it ` +
          `holds \`${targetBranch}\`'s tree unchanged and shows whether the required checks start on a test PR.`,
        '',
        'railyard closes it and deletes its branch when the preflight ends.',
        '',
        TEST_PR_MARKER,
      ].join('\n'),
    };
  return {
    title: `railyard test run of ${prs} (${run.runId})`,
    body: [
      `This draft pull request belongs to railyard's merge queue for \`${targetBranch}\`: it runs your ` +
        `\`pull_request\` CI on test run \`${run.runId}\`, which applies ${prs} on top of \`${targetBranch}\`.`,
      '',
      'railyard closes it and deletes its branch when the run ends. Please do not push to it, merge it or ' +
        'comment commands on it: the PRs it tests are merged by the queue.',
      '',
      TEST_PR_MARKER,
    ].join('\n'),
  };
}

/** Whether `pr` is one of railyard's test PRs of this repository under `prefix` (rules above). */
export function isTestPullRequest(
  pr: Pick<PullWire, 'body' | 'user' | 'head' | 'base'>,
  prefix: string,
): boolean {
  const headRepo = pr.head.repo?.full_name;
  return (
    headRepo !== undefined &&
    headRepo.toLowerCase() === pr.base.repo.full_name.toLowerCase() &&
    pr.head.ref.startsWith(prefix) &&
    checkBranchName(pr.head.ref).ok &&
    pr.user?.type === 'Bot' &&
    (pr.body ?? '').includes(TEST_PR_MARKER)
  );
}

/**
 * The run id of a test branch `<prefix>pr-<n>/<runId>` (names.testBranchName), or null for any other
 * name under the prefix.
 */
export function runIdOfTestBranch(branch: string, prefix: string): string | null {
  if (!branch.startsWith(prefix)) return null;
  const match = /^pr-\d+\/([^/]+)$/.exec(branch.slice(prefix.length));
  return match ? match[1]! : null;
}

interface Repo {
  owner: string;
  repo: string;
}

async function openFrom(client: GitHubRest, params: Repo, branch: string, base: string) {
  const r = await client.request<PullWire[]>('GET /repos/{owner}/{repo}/pulls', {
    ...params,
    state: 'open',
    head: `${params.owner}:${branch}`,
    base,
    per_page: PER_PAGE,
  });
  return r.data;
}

/**
 * Opens (or finds) the draft PR of a test branch; its number, or null when GitHub has nothing to
 * compare (the branch holds no commit the target lacks).
 */
export async function openTestPullRequest(
  client: GitHubRest,
  params: Repo,
  input: { branch: string; targetBranch: string; run: TestPullRequestRun },
): Promise<number | null> {
  return (await openTestPullRequestLink(client, params, input))?.number ?? null;
}

/** openTestPullRequest with the PR's page on GitHub (`html_url`), for answers that show it. */
export async function openTestPullRequestLink(
  client: GitHubRest,
  params: Repo,
  input: { branch: string; targetBranch: string; run: TestPullRequestRun },
): Promise<{ number: number; url: string } | null> {
  const link = (p: PullWire) => ({ number: p.number, url: p.html_url });
  const existing = await openFrom(client, params, input.branch, input.targetBranch);
  if (existing[0]) return link(existing[0]);
  const text = testPullRequestText(input.run, input.targetBranch);
  try {
    const r = await client.request<PullWire>('POST /repos/{owner}/{repo}/pulls', {
      ...params,
      head: input.branch,
      base: input.targetBranch,
      title: text.title,
      body: text.body,
      draft: true,
      maintainer_can_modify: false,
    });
    return link(r.data);
  } catch (err) {
    if (!(err instanceof GitHubApiError) || err.status !== 422) throw err;
    // Another attempt opened it meanwhile: that one is ours.
    const raced = await openFrom(client, params, input.branch, input.targetBranch);
    if (raced[0]) return link(raced[0]);
    if (/no commits between/i.test(err.reason ?? '')) return null;
    throw err;
  }
}

/** Closes every open PR from `branch` (railyard's test PR of it); the numbers closed. */
export async function closeTestPullRequests(
  client: GitHubRest,
  params: Repo,
  branch: string,
): Promise<number[]> {
  const r = await client.request<PullWire[]>('GET /repos/{owner}/{repo}/pulls', {
    ...params,
    state: 'open',
    head: `${params.owner}:${branch}`,
    per_page: PER_PAGE,
  });
  const closed: number[] = [];
  for (const pr of r.data) {
    await client.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...params,
      pull_number: pr.number,
      state: 'closed',
    });
    closed.push(pr.number);
  }
  return closed;
}

/**
 * railyard's open test PRs into `targetBranch` from test branches under `prefix` (`<prefix>pr-<n>/<run>`),
 * oldest first (bounded, see above).
 */
export async function listTestPullRequests(
  client: GitHubRest,
  params: Repo,
  targetBranch: string,
  prefix: string,
): Promise<OpenTestPullRequest[]> {
  const found: OpenTestPullRequest[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await client.request<PullWire[]>('GET /repos/{owner}/{repo}/pulls', {
      ...params,
      state: 'open',
      base: targetBranch,
      sort: 'created',
      direction: 'asc',
      per_page: PER_PAGE,
      page,
    });
    for (const pr of r.data) {
      const runId = runIdOfTestBranch(pr.head.ref, prefix);
      if (runId !== null && isTestPullRequest(pr, prefix))
        found.push({ number: pr.number, branchName: pr.head.ref, runId });
    }
    if (r.data.length < PER_PAGE) break;
  }
  return found;
}
