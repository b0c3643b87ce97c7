/**
 * fakehub's PR reviews: the REST list (`GET /pulls/{n}/reviews`), the review object of REST and of the
 * `pull_request_review` webhook, and the review rule a protected branch imposes on a PR.
 *
 * Rules, as GitHub:
 * - the list holds every review in the order they were submitted (REST spells states in capitals,
 *   webhooks in lower case);
 * - what counts for a merge is each person's latest review that is not a comment: a branch that
 *   requires N approvals blocks a PR until N people's latest review approves it, and any latest
 *   `CHANGES_REQUESTED` blocks it too (a dismissed review counts for nothing).
 */
import { userJson } from './payloads';
import type { RestAnswer, RestContext, RestRequest } from './rest';
import type { FakeHubState, PullRequest, Repository, Review } from './state';

type JsonObject = Record<string, unknown>;

const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function reviewJson(
  base: string,
  repo: Repository,
  review: Review,
  form: 'rest' | 'webhook',
): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  const html = `${base}/${full}/pull/${review.number}#pullrequestreview-${review.id}`;
  const pull = `${base}/repos/${full}/pulls/${review.number}`;
  return {
    id: review.id,
    node_id: `PRR_${review.id}`,
    user: userJson(base, review.user, 'User'),
    body: review.body,
    state: form === 'rest' ? review.state : review.state.toLowerCase(),
    html_url: html,
    pull_request_url: pull,
    _links: { html: { href: html }, pull_request: { href: pull } },
    submitted_at: iso(review.submittedAt),
    commit_id: review.commitId,
    author_association: 'MEMBER',
  };
}

/** Why the branch's review rule blocks `pr`, or null when it does not (or the branch has none). */
export function reviewBlock(state: FakeHubState, repo: Repository, pr: PullRequest): string | null {
  const required = repo.protection.get(pr.base)?.requiredApprovingReviewCount;
  if (required === undefined) return null;
  const latest = new Map<string, Review['state']>();
  for (const review of state.reviewsOf(pr))
    if (review.state !== 'COMMENTED') latest.set(review.user, review.state);
  const states = [...latest.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'changes requested';
  const approvals = states.filter((s) => s === 'APPROVED').length;
  return approvals < required ? `${approvals} of ${required} approvals` : null;
}

const notFound = (): Promise<RestAnswer> =>
  Promise.resolve({
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' },
  });

export const reviewHandlers: Record<string, (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>> = {
  'pulls/list-reviews': (ctx, req) => {
    const repo = ctx.state.repository(String(req.params.owner), String(req.params.repo));
    if (!repo || (req.installationId !== null && repo.installationId !== req.installationId))
      return notFound();
    const pr = ctx.state.pull(repo, Number(req.params.pull_number));
    if (!pr) return notFound();
    const perPage = Math.min(Number(req.query.get('per_page') ?? 30) || 30, 100);
    const page = Math.max(Number(req.query.get('page') ?? 1) || 1, 1);
    const all = ctx.state.reviewsOf(pr);
    const body = all
      .slice((page - 1) * perPage, page * perPage)
      .map((r) => reviewJson(ctx.base, repo, r, 'rest'));
    return Promise.resolve({ status: 200, body });
  },
};
