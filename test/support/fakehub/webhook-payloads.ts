/**
 * The JSON bodies of fakehub's webhook deliveries, built from a HubEvent (events.ts) and the state.
 * Every payload carries `installation: {id, node_id}`, `repository` (when the event has one), `sender`,
 * and `organization` for repositories of an organisation, as GitHub's do; the contract check validates
 * each one against `@octokit/openapi-webhooks` before it is sent.
 *
 * Rules: PR payloads describe the PR as copied when the event happened, with `mergeable: null` (GitHub
 * computes it after announcing the change). Push payloads list the pushed commits (`before..after`, or,
 * for a new ref, the commits no other branch has), at most 20 as GitHub does, `head_commit` the tip
 * (null when deleted). Comment payloads carry the PR as its issue (with `pull_request` links) and
 * the comment as it was when the event happened.
 */
import type { FakeApp } from './app-auth';
import type { Actor, HubEvent } from './events';
import {
  installationJson,
  issueCommentJson,
  issueOfPullRequestJson,
  pullRequestJson,
  pullRequestSimpleJson,
  repositoryJson,
  statusJson,
  checkRunJson,
  userJson,
} from './payloads';
import { reviewJson } from './rest-reviews';
import { ZERO_SHA, type FakeHubState, type Repository } from './state';

type JsonObject = Record<string, unknown>;

export interface BuiltPayload {
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  payload: JsonObject;
}

export interface WebhookPayloadContext {
  base: string;
  app: FakeApp;
  state: FakeHubState;
}

const MAX_PUSH_COMMITS = 20;
const iso = (date: Date | null): string | null =>
  date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : null;

function repositoryById(state: FakeHubState, id: number): Repository {
  for (const repository of state.repositories.values()) if (repository.id === id) return repository;
  throw new Error(`fakehub: repository ${id} does not exist`);
}

function ownerTypeOf(state: FakeHubState, repository: Repository): 'User' | 'Organization' {
  return state.installations.get(repository.installationId)?.accountType ?? 'Organization';
}

function organizationJson(base: string, login: string): JsonObject {
  const user = userJson(base, login, 'Organization');
  const url = `${base}/orgs/${encodeURIComponent(login)}`;
  return {
    login,
    id: user.id,
    node_id: `O_${String(user.id)}`,
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: user.avatar_url,
    description: null,
  };
}

/** `installation`, `repository`, `organization`, `sender`: what every repository event carries. */
function envelope(ctx: WebhookPayloadContext, repository: Repository, sender: Actor): JsonObject {
  const ownerType = ownerTypeOf(ctx.state, repository);
  return {
    ...(ownerType === 'Organization' ? { organization: organizationJson(ctx.base, repository.owner) } : {}),
    repository: repositoryJson(ctx.base, repository, ownerType),
    sender: userJson(ctx.base, sender.login, sender.type),
    installation: { id: repository.installationId, node_id: `I_${repository.installationId}` },
  };
}

interface CommitInfo {
  id: string;
  tree_id: string;
  distinct: boolean;
  message: string;
  timestamp: string;
  url: string;
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  added: string[];
  removed: string[];
  modified: string[];
}

async function commitInfo(
  ctx: WebhookPayloadContext,
  repository: Repository,
  sha: string,
): Promise<CommitInfo> {
  const raw = await ctx.state.run(repository.bare, [
    'show',
    '-s',
    '--format=%H%x00%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B',
    `${sha}^{commit}`,
  ]);
  const [id = sha, tree = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', ...message] =
    raw.split('\0');
  const files = await ctx.state.run(repository.bare, [
    'diff-tree',
    '--no-commit-id',
    '--name-status',
    '-r',
    '--root',
    `${sha}^{commit}`,
  ]);
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const line of files.split('\n').filter(Boolean)) {
    const [status = '', path = ''] = line.split('\t');
    (status.startsWith('A') ? added : status.startsWith('D') ? removed : modified).push(path);
  }
  const date = (value: string) => new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    id,
    tree_id: tree,
    distinct: true,
    message: message.join('\0').trim(),
    timestamp: date(ad),
    url: `${ctx.base}/${repository.owner}/${repository.name}/commit/${id}`,
    author: { name: an, email: ae, date: date(ad) },
    committer: { name: cn, email: ce, date: date(cd) },
    added,
    removed,
    modified,
  };
}

/** The commits a push brought: `before..after`, or for a new ref those no other branch has. */
async function pushedCommits(
  ctx: WebhookPayloadContext,
  repository: Repository,
  ref: string,
  before: string,
  after: string,
): Promise<string[]> {
  if (after === ZERO_SHA) return [];
  let exclude: string[];
  if (before !== ZERO_SHA) exclude = [`^${before}`];
  else {
    const heads = await ctx.state.run(repository.bare, [
      'for-each-ref',
      '--format=%(refname) %(objectname)',
      'refs/heads',
    ]);
    exclude = heads
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' '))
      .filter(([name]) => name !== ref)
      .map(([, sha]) => `^${sha}`);
  }
  const listed = await ctx.state.run(repository.bare, [
    'rev-list',
    '--reverse',
    '--topo-order',
    after,
    ...exclude,
  ]);
  return listed.split('\n').filter(Boolean).slice(-MAX_PUSH_COMMITS);
}

export async function buildPayload(ctx: WebhookPayloadContext, event: HubEvent): Promise<BuiltPayload> {
  const { state, base } = ctx;
  switch (event.kind) {
    case 'pull_request': {
      const repository = repositoryById(state, event.repositoryId);
      const baseSha =
        (await state.resolveCommit(repository, `refs/heads/${event.pr.base}`)) ?? event.pr.headSha;
      const pullRequest = {
        ...pullRequestJson(base, {
          pr: event.pr,
          repo: repository,
          ownerType: ownerTypeOf(state, repository),
          baseSha,
          mergeable: null,
          mergeableState: 'unknown',
        }),
        allow_auto_merge: false,
        delete_branch_on_merge: false,
        use_squash_pr_title_as_default: false,
      };
      const extra =
        event.action === 'synchronize'
          ? { before: event.before, after: event.after }
          : event.action === 'edited'
            ? { changes: event.changes }
            : {};
      return {
        event: 'pull_request',
        action: event.action,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          action: event.action,
          number: event.pr.number,
          ...extra,
          pull_request: pullRequest,
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'push': {
      const repository = repositoryById(state, event.repositoryId);
      const shas = await pushedCommits(ctx, repository, event.ref, event.before, event.after);
      const commits: CommitInfo[] = [];
      for (const sha of shas) commits.push(await commitInfo(ctx, repository, sha));
      const head =
        event.after === ZERO_SHA
          ? null
          : (commits.find((c) => c.id === event.after) ?? (await commitInfo(ctx, repository, event.after)));
      const short = (sha: string) => sha.slice(0, 12);
      return {
        event: 'push',
        action: null,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          ref: event.ref,
          before: event.before,
          after: event.after,
          created: event.before === ZERO_SHA,
          deleted: event.after === ZERO_SHA,
          forced: event.forced,
          base_ref: null,
          compare: `${base}/${repository.owner}/${repository.name}/compare/${short(event.before)}...${short(event.after)}`,
          commits,
          head_commit: head,
          pusher: { name: event.sender.login, email: null },
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'check_run': {
      const repository = repositoryById(state, event.repositoryId);
      const run = checkRunJson(base, repository, event.run, ctx.app.id + 1, 'ci');
      const suite = run.check_suite as { id: number };
      return {
        event: 'check_run',
        action: event.action,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          action: event.action,
          check_run: {
            ...run,
            // The webhook schema wants a string where the REST one allows null.
            details_url: run.html_url,
            check_suite: {
              id: suite.id,
              node_id: `CS_${suite.id}`,
              head_branch: null,
              head_sha: event.run.headSha,
              status: event.run.status,
              conclusion: event.run.conclusion,
              url: `${base}/repos/${repository.owner}/${repository.name}/check-suites/${suite.id}`,
              before: null,
              after: null,
              pull_requests: [],
              app: run.app,
              created_at: iso(event.run.startedAt),
              updated_at: iso(event.run.completedAt ?? event.run.startedAt),
            },
          },
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'status': {
      const repository = repositoryById(state, event.repositoryId);
      const status = statusJson(base, repository, event.status);
      const info = await commitInfo(ctx, repository, event.status.sha);
      const parents = (
        await state.run(repository.bare, ['rev-list', '--parents', '-n', '1', event.status.sha])
      )
        .split(' ')
        .slice(1);
      const repoUrl = `${base}/repos/${repository.owner}/${repository.name}`;
      const html = `${base}/${repository.owner}/${repository.name}`;
      const tips = await state.run(repository.bare, [
        'for-each-ref',
        '--format=%(refname:lstrip=2)',
        `--points-at=${event.status.sha}`,
        'refs/heads',
      ]);
      const branches = tips
        .split('\n')
        .filter(Boolean)
        .slice(0, 10)
        .map((name) => ({
          name,
          commit: { sha: event.status.sha, url: `${repoUrl}/commits/${event.status.sha}` },
          protected: repository.protection.has(name),
        }));
      return {
        event: 'status',
        action: null,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          id: event.status.id,
          sha: event.status.sha,
          name: `${repository.owner}/${repository.name}`,
          target_url: event.status.targetUrl,
          avatar_url: null,
          context: event.status.context,
          description: event.status.description,
          state: event.status.state,
          commit: {
            sha: event.status.sha,
            node_id: `C_${event.status.sha}`,
            commit: {
              author: info.author,
              committer: info.committer,
              message: info.message,
              tree: { sha: info.tree_id, url: `${repoUrl}/git/trees/${info.tree_id}` },
              url: `${repoUrl}/git/commits/${event.status.sha}`,
              comment_count: 0,
              verification: {
                verified: false,
                reason: 'unsigned',
                signature: null,
                payload: null,
                verified_at: null,
              },
            },
            url: `${repoUrl}/commits/${event.status.sha}`,
            html_url: `${html}/commit/${event.status.sha}`,
            comments_url: `${repoUrl}/commits/${event.status.sha}/comments`,
            author: null,
            committer: null,
            parents: parents.map((sha) => ({
              sha,
              url: `${repoUrl}/commits/${sha}`,
              html_url: `${html}/commit/${sha}`,
            })),
          },
          branches,
          created_at: status.created_at,
          updated_at: status.updated_at,
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'issue_comment': {
      const repository = repositoryById(state, event.repositoryId);
      const comments = state.commentsOf(repository, event.pr.number).length;
      return {
        event: 'issue_comment',
        action: event.action,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          action: event.action,
          ...(event.changes ? { changes: event.changes } : {}),
          issue: issueOfPullRequestJson(base, repository, event.pr, comments),
          comment: issueCommentJson(base, repository, event.comment),
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'pull_request_review': {
      const repository = repositoryById(state, event.repositoryId);
      const baseSha =
        (await state.resolveCommit(repository, `refs/heads/${event.pr.base}`)) ?? event.pr.headSha;
      const review =
        event.action === 'dismissed' ? { ...event.review, state: 'DISMISSED' as const } : event.review;
      return {
        event: 'pull_request_review',
        action: event.action,
        installationId: repository.installationId,
        repositoryId: repository.id,
        payload: {
          action: event.action,
          review: reviewJson(base, repository, review, 'webhook'),
          pull_request: pullRequestSimpleJson(base, {
            pr: event.pr,
            repo: repository,
            ownerType: ownerTypeOf(state, repository),
            baseSha,
            mergeable: null,
            mergeableState: 'unknown',
          }),
          ...envelope(ctx, repository, event.sender),
        },
      };
    }
    case 'installation_repositories': {
      const installation = state.installations.get(event.installationId);
      if (!installation) throw new Error(`fakehub: installation ${event.installationId} does not exist`);
      const added = event.repositoryIds.map((id) => repositoryById(state, id));
      return {
        event: 'installation_repositories',
        action: event.action,
        installationId: installation.id,
        repositoryId: null,
        payload: {
          action: event.action,
          installation: installationJson(base, installation, ctx.app.id, ctx.app.slug),
          repository_selection: 'selected',
          repositories_added: added.map((r) => ({
            id: r.id,
            node_id: `R_${r.id}`,
            name: r.name,
            full_name: `${r.owner}/${r.name}`,
            private: true,
          })),
          repositories_removed: [],
          requester: null,
          sender: userJson(base, event.sender.login, event.sender.type),
          ...(installation.accountType === 'Organization'
            ? { organization: organizationJson(base, installation.account) }
            : {}),
        },
      };
    }
  }
}
