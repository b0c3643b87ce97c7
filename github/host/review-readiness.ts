/**
 * Which review rule keeps GitHub from merging a PR, as a sentence for its record and live comment.
 * GitHub's REST says only `mergeable_state: blocked`; this reads the branch's `pull_request` rule
 * (rulesets) and the PR's reviews and names what is missing.
 *
 * Rules, as GitHub counts reviews: each person's latest review that is not a plain comment counts; a
 * dismissed review counts for nothing; any counted `CHANGES_REQUESTED` blocks the PR whatever the
 * approvals. When the required count cannot be read (classic branch protection needs a permission
 * the App does not ask for), a PR without any approval is said to need one; otherwise null, and the
 * caller says the rules block it.
 *
 * Bounds: at most MAX_REVIEW_PAGES pages of 100 reviews are read (a PR with more is judged on those).
 */
import type { GitHubRest } from '../app/rest-client';

export const MAX_REVIEW_PAGES = 3;
/** Reviewers named in a sentence; the rest are counted. */
export const MAX_NAMED = 5;

interface ReviewWire {
  user: { login: string } | null;
  /** APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING (GitHub may add others). */
  state: string;
}

interface RuleWire {
  type: string;
  parameters?: { required_approving_review_count?: number; required_review_thread_resolution?: boolean };
}

export interface ReviewRule {
  /** Approvals the branch's rulesets require; undefined when no ruleset says (or none is readable). */
  readonly requiredApprovals: number | undefined;
  readonly threadResolution: boolean;
}

/** Pure: the sentence for a PR whose counted reviews and branch rule are these, or null. */
export function reviewSentence(reviews: readonly ReviewWire[], rule: ReviewRule): string | null {
  const latest = new Map<string, string>();
  for (const review of reviews) {
    const login = review.user?.login;
    if (login === undefined || review.state === 'COMMENTED' || review.state === 'PENDING') continue;
    latest.set(login, review.state);
  }
  const requesting = [...latest].filter(([, s]) => s === 'CHANGES_REQUESTED').map(([login]) => `@${login}`);
  // The sentence travels in workflow payloads and comments: at most MAX_NAMED reviewers by name.
  const named =
    requesting.length > MAX_NAMED
      ? `${requesting.slice(0, MAX_NAMED).join(', ')} and ${requesting.length - MAX_NAMED} more`
      : requesting.join(', ');
  if (requesting.length > 0)
    return `${named} requested changes: it is admitted once ${
      requesting.length > 1 ? 'they approve or their reviews are' : 'they approve or the review is'
    } dismissed`;
  const approvals = [...latest.values()].filter((s) => s === 'APPROVED').length;
  const required = rule.requiredApprovals;
  if (required !== undefined && approvals < required)
    return `it needs ${required} approving review${required > 1 ? 's' : ''} (it has ${approvals === 0 ? 'none' : approvals})`;
  if (required === undefined && approvals === 0) return 'it needs an approving review (it has none)';
  if (rule.threadResolution)
    return 'its review conversations must be resolved first (the branch rules require it)';
  return null;
}

/** The review rule of `branch` from its rulesets (the strictest when several apply). */
export async function readReviewRule(
  client: GitHubRest,
  repo: { owner: string; name: string },
  branch: string,
): Promise<ReviewRule> {
  const rules = await client.request<RuleWire[]>('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
    owner: repo.owner,
    repo: repo.name,
    branch,
    per_page: 100,
  });
  const prRules = rules.data.filter((r) => r.type === 'pull_request');
  const counts = prRules.map((r) => r.parameters?.required_approving_review_count ?? 0);
  return {
    requiredApprovals: counts.length > 0 ? Math.max(...counts) : undefined,
    threadResolution: prRules.some((r) => r.parameters?.required_review_thread_resolution === true),
  };
}

/** Why the reviews of PR `number` keep it from merging, or null when they do not seem to. */
export async function reviewBlockedBy(
  client: GitHubRest,
  repo: { owner: string; name: string },
  number: number,
  branch: string,
): Promise<string | null> {
  const rule = await readReviewRule(client, repo, branch);
  const reviews: ReviewWire[] = [];
  for (let page = 1; page <= MAX_REVIEW_PAGES; page += 1) {
    const answer = await client.request<ReviewWire[]>(
      'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
      {
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
        per_page: 100,
        page,
      },
    );
    reviews.push(...answer.data);
    if (answer.data.length < 100) break;
  }
  return reviewSentence(reviews, rule);
}
