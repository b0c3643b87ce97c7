/**
 * The JSON shapes fakehub answers with, built from its state. Each builder fills every field GitHub's
 * description requires for that shape (the contract check validates each response anyway); values that
 * fakehub does not simulate are GitHub's defaults for a plain private repository.
 *
 * URLs point at the fake itself (`base`), so any link a client follows stays offline.
 */
import {
  REACTION_CONTENTS,
  type CheckRun,
  type CommitStatus,
  type Installation,
  type IssueComment,
  type PullRequest,
  type Reaction,
  type Repository,
  type RepositoryRole,
} from './state';

type JsonObject = Record<string, unknown>;

const iso = (date: Date | null): string | null =>
  date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : null;

/** Stable small ids for user logins, so the same login always has the same id. */
function userId(login: string): number {
  let hash = 7;
  for (const char of login) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_000;
  return 10_000 + hash;
}

export function userJson(
  base: string,
  login: string,
  type: 'User' | 'Organization' | 'Bot' = 'User',
): JsonObject {
  const url = `${base}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id: userId(login),
    node_id: `U_${userId(login)}`,
    avatar_url: `${base}/avatars/${encodeURIComponent(login)}`,
    gravatar_id: '',
    url,
    html_url: `${base}/${encodeURIComponent(login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    site_admin: false,
  };
}

/** Fields shared by `minimal-repository`, `repository` and `full-repository`. */
export function repositoryJson(
  base: string,
  repo: Repository,
  ownerType: 'User' | 'Organization',
): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  const url = `${base}/repos/${full}`;
  return {
    id: repo.id,
    node_id: `R_${repo.id}`,
    name: repo.name,
    full_name: full,
    owner: userJson(base, repo.owner, ownerType),
    private: true,
    html_url: `${base}/${full}`,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://fakehub.invalid/${full}.git`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@fakehub.invalid:${full}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${base}/${full}.git`,
    mirror_url: null,
    hooks_url: `${url}/hooks`,
    svn_url: `${base}/${full}`,
    homepage: null,
    language: null,
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: 0,
    open_issues: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: 'private',
    pushed_at: iso(repo.pushedAt),
    created_at: iso(repo.createdAt),
    updated_at: iso(repo.pushedAt),
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    allow_rebase_merge: repo.allowedMergeMethods.has('rebase'),
    allow_squash_merge: repo.allowedMergeMethods.has('squash'),
    allow_merge_commit: repo.allowedMergeMethods.has('merge'),
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_forking: false,
    license: null,
    network_count: 0,
    subscribers_count: 0,
  };
}

export interface PullRequestView {
  pr: PullRequest;
  repo: Repository;
  ownerType: 'User' | 'Organization';
  baseSha: string;
  mergeable: boolean | null;
  mergeableState: string;
}

function pullRequestCommon(base: string, view: PullRequestView): JsonObject {
  const { pr, repo } = view;
  const full = `${repo.owner}/${repo.name}`;
  const url = `${base}/repos/${full}/pulls/${pr.number}`;
  const issue = `${base}/repos/${full}/issues/${pr.number}`;
  const html = `${base}/${full}/pull/${pr.number}`;
  const repoJson = repositoryJson(base, repo, view.ownerType);
  const side = (ref: string, sha: string) => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: userJson(base, repo.owner, view.ownerType),
    repo: repoJson,
  });
  return {
    url,
    id: pr.id,
    node_id: `PR_${pr.id}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${base}/repos/${full}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${base}/repos/${full}/statuses/${pr.headSha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: userJson(base, pr.author, pr.author.endsWith('[bot]') ? 'Bot' : 'User'),
    body: pr.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: iso(pr.createdAt),
    updated_at: iso(pr.updatedAt),
    closed_at: iso(pr.closedAt),
    merged_at: iso(pr.mergedAt),
    merge_commit_sha: pr.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pr.headBranch, pr.headSha),
    base: side(pr.base, view.baseSha),
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${base}/repos/${full}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${base}/repos/${full}/statuses/${pr.headSha}` },
    },
    author_association: 'MEMBER',
    auto_merge: null,
    draft: pr.draft,
  };
}

export function pullRequestSimpleJson(base: string, view: PullRequestView): JsonObject {
  return pullRequestCommon(base, view);
}

export function pullRequestJson(base: string, view: PullRequestView): JsonObject {
  return {
    ...pullRequestCommon(base, view),
    merged: view.pr.merged,
    mergeable: view.mergeable,
    rebaseable: view.mergeable,
    mergeable_state: view.mergeableState,
    merged_by: view.pr.mergedBy ? userJson(base, view.pr.mergedBy, 'Bot') : null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

export function installationJson(
  base: string,
  installation: Installation,
  appId: number,
  appSlug: string,
): JsonObject {
  return {
    id: installation.id,
    account: userJson(base, installation.account, installation.accountType),
    repository_selection: 'selected',
    access_tokens_url: `${base}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${base}/installation/repositories`,
    html_url: `${base}/organizations/${installation.account}/settings/installations/${installation.id}`,
    app_id: appId,
    app_slug: appSlug,
    target_id: installation.accountId,
    target_type: installation.accountType,
    permissions: {
      contents: 'write',
      pull_requests: 'write',
      checks: 'write',
      statuses: 'write',
      metadata: 'read',
      issues: 'read',
    },
    events: ['pull_request', 'push', 'check_run', 'status', 'issue_comment'],
    created_at: iso(installation.createdAt),
    updated_at: iso(installation.createdAt),
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  };
}

export function checkRunJson(
  base: string,
  repo: Repository,
  run: CheckRun,
  appId: number,
  appSlug: string,
): JsonObject {
  const url = `${base}/repos/${repo.owner}/${repo.name}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: `CR_${run.id}`,
    head_sha: run.headSha,
    external_id: run.byApp ? run.byApp.externalId : String(run.id),
    url,
    html_url: `${base}/${repo.owner}/${repo.name}/runs/${run.id}`,
    details_url: run.byApp?.detailsUrl ?? null,
    status: run.status,
    conclusion: run.conclusion,
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    output: {
      title: run.byApp?.title ?? null,
      summary: run.byApp?.summary ?? null,
      text: null,
      annotations_count: 0,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.id + 1 },
    app: {
      id: appId,
      slug: appSlug,
      node_id: `A_${appId}`,
      owner: userJson(base, 'ci-owner', 'Organization'),
      name: 'CI',
      description: null,
      external_url: `${base}/apps/ci`,
      html_url: `${base}/apps/ci`,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-01-01T00:00:00Z',
      permissions: { checks: 'write' },
      events: [],
    },
    pull_requests: [],
  };
}

export function statusJson(base: string, repo: Repository, status: CommitStatus): JsonObject {
  return {
    url: `${base}/repos/${repo.owner}/${repo.name}/statuses/${status.sha}`,
    avatar_url: null,
    id: status.id,
    node_id: `SC_${status.id}`,
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: iso(status.createdAt),
    updated_at: iso(status.createdAt),
    creator: userJson(base, status.creator, 'Bot'),
  };
}

/** An App as GitHub shows it acting (`performed_via_github_app`, the `integration` schema). */
function appJson(base: string, app: { id: number; slug: string }): JsonObject {
  return {
    id: app.id,
    slug: app.slug,
    node_id: `A_${app.id}`,
    owner: userJson(base, `${app.slug}-owner`, 'Organization'),
    name: app.slug,
    description: null,
    external_url: `${base}/apps/${app.slug}`,
    html_url: `${base}/apps/${app.slug}`,
    created_at: '2020-01-01T00:00:00Z',
    updated_at: '2020-01-01T00:00:00Z',
    permissions: { issues: 'write', pull_requests: 'write', checks: 'write' },
    events: [],
  };
}

export function issueCommentJson(base: string, repo: Repository, comment: IssueComment): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  const url = `${base}/repos/${full}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url,
    html_url: `${base}/${full}/pull/${comment.number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: userJson(base, comment.author.login, comment.author.type),
    created_at: iso(comment.createdAt),
    updated_at: iso(comment.updatedAt ?? comment.createdAt),
    issue_url: `${base}/repos/${full}/issues/${comment.number}`,
    author_association: comment.author.type === 'Bot' ? 'NONE' : 'MEMBER',
    performed_via_github_app: comment.author.app ? appJson(base, comment.author.app) : null,
    reactions: reactionRollup(`${url}/reactions`, comment.reactions),
  };
}

/** GitHub's `reactions` rollup of a comment or an issue: a count per content and the total. */
export function reactionRollup(url: string, reactions: readonly Reaction[]): JsonObject {
  const counts = Object.fromEntries(
    REACTION_CONTENTS.map((content) => [content, reactions.filter((r) => r.content === content).length]),
  );
  return { url, total_count: reactions.length, ...counts };
}

export function reactionJson(base: string, reaction: Reaction): JsonObject {
  return {
    id: reaction.id,
    node_id: `REA_${reaction.id}`,
    user: userJson(base, reaction.user.login, reaction.user.type),
    content: reaction.content,
    created_at: iso(reaction.createdAt),
  };
}

/** A PR as the issue GitHub's `issue_comment` payloads carry (with its `pull_request` links). */
export function issueOfPullRequestJson(
  base: string,
  repo: Repository,
  pr: PullRequest,
  comments: number,
): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  const url = `${base}/repos/${full}/issues/${pr.number}`;
  const html = `${base}/${full}/pull/${pr.number}`;
  return {
    url,
    repository_url: `${base}/repos/${full}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: html,
    timeline_url: `${url}/timeline`,
    id: pr.id,
    node_id: `PR_${pr.id}`,
    number: pr.number,
    title: pr.title,
    user: userJson(base, pr.author, pr.author.endsWith('[bot]') ? 'Bot' : 'User'),
    labels: [],
    state: pr.state,
    state_reason: null,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments,
    created_at: iso(pr.createdAt),
    updated_at: iso(pr.updatedAt),
    closed_at: iso(pr.closedAt),
    author_association: 'MEMBER',
    active_lock_reason: null,
    draft: pr.draft,
    body: pr.body,
    performed_via_github_app: null,
    reactions: reactionRollup(`${url}/reactions`, []),
    pull_request: {
      url: `${base}/repos/${full}/pulls/${pr.number}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: iso(pr.mergedAt),
    },
  };
}

/** The base permission GitHub reports for a role: maintain counts as write, triage as read. */
export const permissionOfRole = (role: RepositoryRole): 'admin' | 'write' | 'read' | 'none' =>
  role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;

/** `GET /collaborators/{username}/permission`: the base permission, the role and the collaborator. */
export function collaboratorPermissionJson(base: string, login: string, role: RepositoryRole): JsonObject {
  const permission = permissionOfRole(role);
  const at = (level: number) =>
    ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(role) >= level;
  return {
    permission,
    role_name: role,
    user:
      role === 'none'
        ? null
        : {
            ...userJson(base, login),
            permissions: { pull: at(1), triage: at(2), push: at(3), maintain: at(4), admin: at(5) },
            role_name: role,
          },
  };
}
