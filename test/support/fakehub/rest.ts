/**
 * fakehub's REST behaviour, one handler per served operation (by operationId), over FakeHubState. The
 * server has already matched the operation, checked the request against the contract and the
 * credential; handlers decide status and body as GitHub does for the simulated state.
 *
 * Rules worth knowing:
 * - Repository-scoped operations answer 404 "Not Found" when the repository does not exist or the
 *   installation of the token does not cover it (GitHub does not reveal private repositories).
 * - `PUT /pulls/{n}/merge`: 409 when `sha` is not the head; 405 when closed, draft, conflicting, a
 *   required check is not successful, the method is disabled, or the base moved while merging.
 *   `merge` and `squash` write real commits with GitHub's messages; `rebase` replays each commit of the
 *   PR onto the base (author kept, GitHub as committer; 405 "This branch can't be rebased" on a
 *   conflict or a merge commit).
 * - Changes made through the API are made by the App's bot user (`<slug>[bot]`): it is the webhooks'
 *   `sender`, the comments' author, the merger.
 * - `GET /app/hook/deliveries` lists attempted deliveries newest first with cursor pagination (a
 *   `Link: <…cursor=…>; rel="next"` header, as GitHub); `POST …/{id}/attempts` queues a redelivery.
 */
import type { FakeApp } from './app-auth';
import { actionsHandlers } from './rest-actions';
import { discussionHandlers } from './rest-discussions';
import { gitRefHandlers } from './rest-git-refs';
import { reviewBlock, reviewHandlers } from './rest-reviews';
import { userHandlers, type FakeHubUserStore } from './users';
import type { Actor } from './events';
import {
  checkRunJson,
  installationJson,
  issueCommentJson,
  pullRequestJson,
  pullRequestSimpleJson,
  repositoryJson,
  statusJson,
} from './payloads';
import type { CheckRun, FakeHubState, MergeMethod, PullRequest, Repository } from './state';
import type { WebhookLog } from './webhooks';

export interface RestRequest {
  operationId: string;
  params: Record<string, unknown>;
  query: URLSearchParams;
  body: unknown;
  /** Installation of the token (installation-token operations), or null (App JWT operations). */
  installationId: number | null;
  /** The person of a user token (user-token operations), or null. */
  userLogin: string | null;
}

export interface RestAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RestContext {
  state: FakeHubState;
  app: FakeApp;
  base: string;
  tokenLifetimeSeconds: number;
  mintToken(installationId: number): { token: string; expiresAt: Date };
  /** Reads left for which `mergeable` is null, by `<repoId>#<n>`. */
  mergeableUnknown: Map<string, number>;
  /**
   * PRs (`<repoId>#<n>`) whose next merge request arrives twice: an earlier request (a worker that died
   * after sending it) is acted on first, and this one gets the answer GitHub gives the second.
   */
  mergeRequestedTwice: Set<string>;
  webhooks: WebhookLog;
  users: FakeHubUserStore;
}

const DOCS = 'https://docs.github.com/rest';
const notFound = (): RestAnswer => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: DOCS, status: '404' },
});
const answer = (status: number, message: string): RestAnswer => ({
  status,
  body: { message, documentation_url: DOCS },
});

export const botLogin = (app: FakeApp): string => `${app.slug}[bot]`;
const botOf = (app: FakeApp): Actor => ({ login: botLogin(app), type: 'Bot' });
const validationFailed = (resource: string, message: string): RestAnswer => ({
  status: 422,
  body: {
    message: 'Validation Failed',
    errors: [{ resource, code: 'custom', message }],
    documentation_url: DOCS,
  },
});
const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** Cursor of `GET /app/hook/deliveries`: the id of the first delivery of the page. */
const DELIVERY_CURSOR = /^v1_(\d+)$/;

function ownerType(ctx: RestContext, repo: Repository): 'User' | 'Organization' {
  return ctx.state.installations.get(repo.installationId)?.accountType ?? 'Organization';
}

function repoOf(ctx: RestContext, req: RestRequest): Repository | null {
  const repo = ctx.state.repository(String(req.params.owner), String(req.params.repo));
  if (!repo) return null;
  if (req.installationId !== null && repo.installationId !== req.installationId) return null;
  return repo;
}

async function pullView(ctx: RestContext, repo: Repository, pr: PullRequest, countRead: boolean) {
  const baseSha = (await ctx.state.resolveCommit(repo, `refs/heads/${pr.base}`)) ?? pr.headSha;
  const key = `${repo.id}#${pr.number}`;
  const unknownReads = ctx.mergeableUnknown.get(key) ?? 0;
  let mergeable: boolean | null = null;
  let mergeableState = 'unknown';
  if (countRead && unknownReads > 0) {
    ctx.mergeableUnknown.set(key, unknownReads - 1);
  } else if (pr.state === 'open') {
    mergeable = (await ctx.state.mergeTree(repo, baseSha, pr.headSha)) !== null;
    mergeableState = !mergeable
      ? 'dirty'
      : pr.draft
        ? 'draft'
        : unmetChecks(ctx, repo, pr).length > 0 || reviewBlock(ctx.state, repo, pr) !== null
          ? 'blocked'
          : (await ctx.state.isAncestor(repo, baseSha, pr.headSha))
            ? 'clean'
            : 'behind';
  }
  return { pr, repo, ownerType: ownerType(ctx, repo), baseSha, mergeable, mergeableState };
}

function unmetChecks(ctx: RestContext, repo: Repository, pr: PullRequest): string[] {
  const contexts = repo.protection.get(pr.base)?.requiredStatusChecks ?? [];
  return contexts.filter((c) => ctx.state.contextState(repo, pr.headSha, c) !== 'success');
}

/** The merge or squash commit of `pr` onto `baseSha`, with GitHub's default messages. */
async function mergeCommit(
  ctx: RestContext,
  repo: Repository,
  pr: PullRequest,
  input: { method: 'merge' | 'squash'; tree: string; baseSha: string; title?: string; message?: string },
): Promise<string> {
  const { method, tree, baseSha } = input;
  const title =
    input.title ??
    (method === 'squash'
      ? `${pr.title} (#${pr.number})`
      : `Merge pull request #${pr.number} from ${repo.owner}/${pr.headBranch}`);
  const message = input.message ?? (method === 'squash' ? '' : pr.title);
  const parents = method === 'merge' ? ['-p', baseSha, '-p', pr.headSha] : ['-p', baseSha];
  return ctx.state.run(
    repo.bare,
    ['commit-tree', tree, ...parents, '-F', '-'],
    message ? `${title}\n\n${message}\n` : `${title}\n`,
    { GIT_AUTHOR_NAME: pr.author, GIT_AUTHOR_EMAIL: `${pr.author}@users.noreply.github.com` },
  );
}

/**
 * GitHub's rebase merge: each commit of `baseSha..headSha`, oldest first, replayed onto the growing
 * tip with its author, date and message kept (GitHub as committer). Each replay is a three-way merge
 * whose base is the commit's parent; git 2.39's `merge-tree` has no `--merge-base`, so it is handed a
 * stand-in commit carrying the tip's tree with that parent as its only parent, which makes the parent
 * the only merge base. Null on a conflict or a merge commit in the range.
 */
async function rebaseOnto(
  ctx: RestContext,
  repo: Repository,
  baseSha: string,
  headSha: string,
): Promise<string | null> {
  const run = (args: string[], input?: string, env?: Record<string, string>) =>
    ctx.state.run(repo.bare, args, input, env);
  const commits = (await run(['rev-list', '--reverse', '--parents', `${baseSha}..${headSha}`]))
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));
  if (commits.length === 0 || commits.some((shas) => shas.length !== 2)) return null;
  let tip = baseSha;
  for (const [commit, parent] of commits as [string, string][]) {
    const standIn = await run([
      'commit-tree',
      `${tip}^{tree}`,
      '-p',
      parent,
      '-m',
      'fakehub rebase stand-in',
    ]);
    const tree = await ctx.state.mergeTree(repo, standIn, commit);
    if (tree === null) return null;
    const [name = '', email = '', date = '', ...message] = (
      await run(['show', '-s', '--format=%an%x00%ae%x00%aI%x00%B', commit])
    ).split('\0');
    tip = await run(['commit-tree', tree, '-p', tip, '-F', '-'], `${message.join('\0').trim()}\n`, {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_AUTHOR_DATE: date,
    });
  }
  return tip;
}

interface TreeItem {
  mode: string;
  type: string;
  sha: string;
  path: string;
  size: number;
}

/** One entry of `GET /contents` (a directory listing's item, or the fields of a file). */
function contentItem(ctx: RestContext, repo: Repository, ref: string, commit: string) {
  const url = `${ctx.base}/repos/${repo.owner}/${repo.name}`;
  const html = `${ctx.base}/${repo.owner}/${repo.name}`;
  return (entry: TreeItem) => {
    const type =
      entry.type === 'tree'
        ? 'dir'
        : entry.type === 'commit'
          ? 'submodule'
          : entry.mode === '120000'
            ? 'symlink'
            : 'file';
    const self = `${url}/contents/${entry.path}?ref=${encodeURIComponent(ref)}`;
    const git = `${url}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`;
    const htmlUrl = `${html}/${entry.type === 'tree' ? 'tree' : 'blob'}/${encodeURIComponent(ref)}/${entry.path}`;
    return {
      type,
      size: entry.size,
      name: entry.path.split('/').at(-1)!,
      path: entry.path,
      sha: entry.sha,
      url: self,
      git_url: git,
      html_url: htmlUrl,
      download_url:
        type === 'file' ? `${ctx.base}/raw/${repo.owner}/${repo.name}/${commit}/${entry.path}` : null,
      _links: { self, git, html: htmlUrl },
    };
  };
}

type Handler = (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>;

const handlers: Record<string, Handler> = {
  ...actionsHandlers,
  ...discussionHandlers,
  ...reviewHandlers,
  ...userHandlers,
  'apps/create-installation-access-token': (ctx, req) => {
    const installation = ctx.state.installations.get(Number(req.params.installation_id));
    if (!installation) return Promise.resolve(notFound());
    const { token, expiresAt } = ctx.mintToken(installation.id);
    const permissions = installationJson(ctx.base, installation, ctx.app.id, ctx.app.slug).permissions;
    return Promise.resolve({
      status: 201,
      body: {
        token,
        expires_at: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions,
        repository_selection: 'selected',
      },
    });
  },

  'apps/get-repo-installation': (ctx, req) => {
    const repo = repoOf(ctx, req);
    const installation = repo ? ctx.state.installations.get(repo.installationId) : undefined;
    if (!installation) return Promise.resolve(notFound());
    return Promise.resolve({
      status: 200,
      body: installationJson(ctx.base, installation, ctx.app.id, ctx.app.slug),
    });
  },

  'repos/get': (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return Promise.resolve(notFound());
    return Promise.resolve({ status: 200, body: repositoryJson(ctx.base, repo, ownerType(ctx, repo)) });
  },

  'pulls/list': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const state = req.query.get('state') ?? 'open';
    const baseFilter = req.query.get('base');
    const headFilter = req.query.get('head');
    const perPage = Math.min(Number(req.query.get('per_page') ?? 30), 100);
    const page = Math.max(Number(req.query.get('page') ?? 1), 1);
    const direction = req.query.get('direction') ?? 'desc';
    const pulls = ctx.state
      .pullsOf(repo)
      .filter((pr) => state === 'all' || pr.state === state)
      .filter((pr) => !baseFilter || pr.base === baseFilter)
      .filter((pr) => !headFilter || `${repo.owner}:${pr.headBranch}` === headFilter)
      .sort((a, b) => (direction === 'asc' ? a.number - b.number : b.number - a.number))
      .slice((page - 1) * perPage, page * perPage);
    const body = [];
    for (const pr of pulls) body.push(pullRequestSimpleJson(ctx.base, await pullView(ctx, repo, pr, false)));
    return { status: 200, body };
  },

  'pulls/get': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    const pr = repo ? ctx.state.pull(repo, Number(req.params.pull_number)) : undefined;
    if (!repo || !pr) return notFound();
    return { status: 200, body: pullRequestJson(ctx.base, await pullView(ctx, repo, pr, true)) };
  },

  'pulls/merge': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    const pr = repo ? ctx.state.pull(repo, Number(req.params.pull_number)) : undefined;
    if (!repo || !pr) return notFound();
    const twice = `${repo.id}#${pr.number}`;
    if (ctx.mergeRequestedTwice.delete(twice)) await handlers['pulls/merge']!(ctx, req);
    const body = (req.body ?? {}) as {
      sha?: string;
      merge_method?: MergeMethod;
      commit_title?: string;
      commit_message?: string;
    };
    if (pr.state !== 'open') return answer(405, 'Pull Request is not mergeable');
    if (body.sha !== undefined && body.sha !== pr.headSha)
      return answer(409, 'Head branch was modified. Review and try the merge again.');
    const method = body.merge_method ?? 'merge';
    if (!repo.allowedMergeMethods.has(method)) {
      const label = { merge: 'Merge commits', squash: 'Squash merges', rebase: 'Rebase merges' }[method];
      return answer(405, `${label} are not allowed on this repository.`);
    }
    if (pr.draft) return answer(405, 'Pull Request is still a draft');
    const unmet = unmetChecks(ctx, repo, pr);
    if (unmet.length > 0) return answer(405, `Required status check "${unmet[0]}" is expected.`);
    const baseSha = await ctx.state.resolveCommit(repo, `refs/heads/${pr.base}`);
    if (!baseSha) return answer(405, 'Pull Request is not mergeable');
    const tree = await ctx.state.mergeTree(repo, baseSha, pr.headSha);
    if (tree === null) return answer(405, 'Pull Request is not mergeable');
    const landed =
      method === 'rebase'
        ? await rebaseOnto(ctx, repo, baseSha, pr.headSha)
        : await mergeCommit(ctx, repo, pr, {
            method,
            tree,
            baseSha,
            title: body.commit_title,
            message: body.commit_message,
          });
    if (landed === null) return answer(405, "This branch can't be rebased");
    const moved = await ctx.state.git(['update-ref', `refs/heads/${pr.base}`, landed, baseSha], {
      dir: repo.bare,
    });
    if (moved.exitCode !== 0) return answer(405, 'Base branch was modified. Review and try the merge again.');
    const merger = botOf(ctx.app);
    await ctx.state.afterPush(
      repo,
      [{ ref: `refs/heads/${pr.base}`, oldSha: baseSha, newSha: landed, fastForward: true }],
      { kind: 'app', appId: ctx.app.id, login: merger.login },
    );
    // A merge commit makes the head reachable, so afterPush has marked the PR merged already; a squash
    // or a rebase does not, so it is marked here (markMerged ignores a PR that is no longer open).
    ctx.state.markMerged(pr, merger, landed);
    return { status: 200, body: { sha: landed, merged: true, message: 'Pull Request successfully merged' } };
  },

  'pulls/create': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const body = req.body as { title?: string; head: string; base: string; body?: string; draft?: boolean };
    // `owner:branch` names a head in the same network; forks are not simulated, so only this owner's.
    const [headOwner, headBranch] = body.head.includes(':')
      ? [body.head.slice(0, body.head.indexOf(':')), body.head.slice(body.head.indexOf(':') + 1)]
      : [repo.owner, body.head];
    if (!body.title) return validationFailed('Issue', "title wasn't supplied.");
    if (body.draft && !repo.draftPullRequests)
      return validationFailed('PullRequest', 'Draft pull requests are not supported in this repository.');
    const headSha =
      headOwner.toLowerCase() === repo.owner.toLowerCase()
        ? await ctx.state.resolveCommit(repo, `refs/heads/${headBranch}`)
        : null;
    const baseSha = await ctx.state.resolveCommit(repo, `refs/heads/${body.base}`);
    if (!headSha || !baseSha)
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: headSha ? 'base' : 'head', code: 'invalid' }],
          documentation_url: DOCS,
        },
      };
    const open = ctx.state
      .pullsOf(repo)
      .find((pr) => pr.state === 'open' && pr.headBranch === headBranch && pr.base === body.base);
    if (open)
      return validationFailed(
        'PullRequest',
        `A pull request already exists for ${repo.owner}:${headBranch}.`,
      );
    if (await ctx.state.isAncestor(repo, headSha, baseSha))
      return validationFailed('PullRequest', `No commits between ${body.base} and ${headBranch}`);
    const pr = await ctx.state.openPullRequest(repo, {
      head: headBranch,
      base: body.base,
      title: body.title,
      author: botLogin(ctx.app),
      draft: body.draft ?? false,
      body: body.body ?? null,
    });
    const json = pullRequestJson(ctx.base, await pullView(ctx, repo, pr, false));
    return { status: 201, body: json, headers: { location: String(json.url) } };
  },

  'pulls/update': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    const pr = repo ? ctx.state.pull(repo, Number(req.params.pull_number)) : undefined;
    if (!repo || !pr) return notFound();
    const body = (req.body ?? {}) as {
      title?: string;
      body?: string;
      state?: 'open' | 'closed';
      base?: string;
    };
    const sender = botOf(ctx.app);
    const refused = await ctx.state.editPullRequest(
      repo,
      pr,
      { title: body.title, body: body.body, base: body.base },
      sender,
    );
    if (refused) return validationFailed('PullRequest', refused);
    if (body.state === 'closed') ctx.state.closePullRequest(pr, sender);
    if (body.state === 'open') {
      const refusal = await ctx.state.reopenPullRequest(repo, pr, sender);
      if (refusal) return validationFailed('PullRequest', refusal);
    }
    return { status: 200, body: pullRequestJson(ctx.base, await pullView(ctx, repo, pr, false)) };
  },

  /** A commit as GitHub's git data API shows it; git resolves it as any reader would (replace refs too). */
  'git/get-commit': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const sha = String(req.params.commit_sha);
    if (!/^[0-9a-f]{40}$/.test(sha)) return notFound();
    const format = ['%H', '%T', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
    const result = await ctx.state.git(['log', '-1', `--format=${format}`, `${sha}^{commit}`, '--'], {
      dir: repo.bare,
    });
    if (result.exitCode !== 0) return notFound();
    const [id, tree, parents, an, ae, ad, cn, ce, cd, ...message] = result.stdout.split('\0');
    const url = `${ctx.base}/repos/${repo.owner}/${repo.name}`;
    const html = `${ctx.base.replace(/\/api\/v3$/, '')}/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      body: {
        sha: id,
        node_id: `C_${Buffer.from(id!).toString('base64url')}`,
        url: `${url}/git/commits/${id}`,
        html_url: `${html}/commit/${id}`,
        author: { name: an, email: ae, date: ad },
        committer: { name: cn, email: ce, date: cd },
        tree: { sha: tree, url: `${url}/git/trees/${tree}` },
        message: message.join('\0').replace(/\n+$/, ''),
        parents: (parents ?? '')
          .split(' ')
          .filter(Boolean)
          .map((p) => ({ sha: p, url: `${url}/git/commits/${p}`, html_url: `${html}/commit/${p}` })),
        verification: {
          verified: false,
          reason: 'unsigned',
          signature: null,
          payload: null,
          verified_at: null,
        },
      },
    };
  },

  'git/get-ref': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const ref = `refs/${String(req.params.ref)}`;
    const result = await ctx.state.git(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
      dir: repo.bare,
    });
    if (result.exitCode !== 0 || ref.includes('..')) return notFound();
    const sha = result.stdout.trim();
    const url = `${ctx.base}/repos/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      body: {
        ref,
        node_id: `REF_${Buffer.from(ref).toString('base64url')}`,
        url: `${url}/git/${ref}`,
        object: { type: 'commit', sha, url: `${url}/git/commits/${sha}` },
      },
    };
  },

  'checks/list-for-ref': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const sha = await ctx.state.resolveCommit(repo, String(req.params.ref));
    if (!sha) return answer(422, `No commit found for SHA: ${String(req.params.ref)}`);
    const name = req.query.get('check_name');
    const status = req.query.get('status');
    let runs = ctx.state
      .checkRunsOf(repo, sha)
      .filter((r) => (!name || r.name === name) && (!status || r.status === status));
    if ((req.query.get('filter') ?? 'latest') === 'latest') {
      const latest = new Map(runs.map((r) => [r.name, r]));
      runs = [...latest.values()];
    }
    const perPage = Math.min(Number(req.query.get('per_page') ?? 30), 100);
    const page = Math.max(Number(req.query.get('page') ?? 1), 1);
    return {
      status: 200,
      body: {
        total_count: runs.length,
        check_runs: runs
          .slice((page - 1) * perPage, page * perPage)
          .map((r) => checkRunJson(ctx.base, repo, r, ctx.app.id + 1, 'ci')),
      },
    };
  },

  'repos/get-combined-status-for-ref': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const sha = await ctx.state.resolveCommit(repo, String(req.params.ref));
    if (!sha) return answer(404, `No commit found for SHA: ${String(req.params.ref)}`);
    const statuses = ctx.state.latestStatuses(repo, sha);
    const state = statuses.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : statuses.length === 0 || statuses.some((s) => s.state === 'pending')
        ? 'pending'
        : 'success';
    const url = `${ctx.base}/repos/${repo.owner}/${repo.name}`;
    const minimal = repositoryJson(ctx.base, repo, ownerType(ctx, repo));
    return {
      status: 200,
      body: {
        state,
        sha,
        total_count: statuses.length,
        statuses: statuses.map((s) => statusJson(ctx.base, repo, s)),
        repository: minimal,
        commit_url: `${url}/commits/${sha}`,
        url: `${url}/commits/${sha}/status`,
      },
    };
  },

  'repos/create-commit-status': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const sha = String(req.params.sha);
    if (!/^[0-9a-f]{40}$/.test(sha) || (await ctx.state.resolveCommit(repo, sha)) !== sha)
      return answer(422, `No commit found for SHA: ${sha}`);
    const body = req.body as {
      state: 'error' | 'failure' | 'pending' | 'success';
      target_url?: string | null;
      description?: string | null;
      context?: string;
    };
    const status = {
      id: ctx.state.id(),
      sha,
      context: body.context ?? 'default',
      state: body.state,
      description: body.description ?? null,
      targetUrl: body.target_url ?? null,
      creator: botLogin(ctx.app),
      createdAt: new Date(),
    };
    ctx.state.recordStatus(repo, status, botOf(ctx.app));
    return { status: 201, body: statusJson(ctx.base, repo, status) };
  },

  'repos/get-branch-rules': (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return Promise.resolve(notFound());
    const protection = repo.protection.get(String(req.params.branch));
    if (!protection) return Promise.resolve({ status: 200, body: [] });
    const info = {
      ruleset_source_type: 'Repository',
      ruleset_source: `${repo.owner}/${repo.name}`,
      ruleset_id: repo.id,
    };
    const rules: unknown[] = [
      { type: 'deletion', ...info },
      { type: 'non_fast_forward', ...info },
    ];
    if (protection.restrictUpdates)
      rules.push({ type: 'update', parameters: { update_allows_fetch_and_merge: false }, ...info });
    if (protection.requiredStatusChecks?.length)
      rules.push({
        type: 'required_status_checks',
        parameters: {
          required_status_checks: protection.requiredStatusChecks.map((context) => ({ context })),
          strict_required_status_checks_policy: protection.strict ?? false,
        },
        ...info,
      });
    if (protection.requiredApprovingReviewCount !== undefined)
      rules.push({
        type: 'pull_request',
        parameters: {
          allowed_merge_methods: [...repo.allowedMergeMethods],
          dismiss_stale_reviews_on_push: false,
          require_code_owner_review: false,
          require_last_push_approval: false,
          required_approving_review_count: protection.requiredApprovingReviewCount,
          required_review_thread_resolution: false,
        },
        ...info,
      });
    return Promise.resolve({ status: 200, body: rules });
  },
  'repos/get-status-checks-protection': (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return Promise.resolve(notFound());
    const branch = String(req.params.branch);
    const protection = repo.protection.get(branch);
    if (!protection) return Promise.resolve(answer(404, 'Branch not protected'));
    const contexts = protection.requiredStatusChecks;
    if (!contexts?.length) return Promise.resolve(answer(404, 'Required status checks not enabled'));
    const url = `${ctx.base}/repos/${repo.owner}/${repo.name}/branches/${encodeURIComponent(branch)}/protection/required_status_checks`;
    return Promise.resolve({
      status: 200,
      body: {
        url,
        strict: protection.strict ?? false,
        contexts,
        checks: contexts.map((context) => ({ context, app_id: null })),
        contexts_url: `${url}/contexts`,
      },
    });
  },

  'repos/get-content': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const ref = req.query.get('ref') ?? repo.defaultBranch;
    const commit = await ctx.state.resolveCommit(repo, ref);
    if (!commit) return answer(404, `No commit found for the ref ${ref}`);
    const path = String(req.params.path).replace(/\/+$/, '');
    if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return notFound();
    const entry = await ctx.state.treeEntry(repo, commit, path);
    if (!entry) return notFound();
    const describe = contentItem(ctx, repo, ref, commit);
    if (entry.type === 'tree')
      return { status: 200, body: (await ctx.state.treeEntries(repo, commit, path)).map(describe) };
    if (entry.type !== 'blob') return { status: 200, body: describe(entry) };
    const bytes = await ctx.state.readBlob(repo, entry.sha);
    if (entry.mode === '120000')
      return { status: 200, body: { ...describe(entry), target: bytes.toString('utf8') } };
    // GitHub wraps the base64 content at 60 characters, each line ending in a newline.
    const content = (bytes.toString('base64').match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');
    return { status: 200, body: { ...describe(entry), content, encoding: 'base64' } };
  },

  'issues/create-comment': (ctx, req) => {
    const repo = repoOf(ctx, req);
    const number = Number(req.params.issue_number);
    if (!repo || !ctx.state.pull(repo, number)) return Promise.resolve(notFound());
    const text = (req.body as { body: string }).body;
    const comment = ctx.state.addComment(repo, number, text, {
      ...botOf(ctx.app),
      app: { id: ctx.app.id, slug: ctx.app.slug },
    });
    const json = issueCommentJson(ctx.base, repo, comment);
    return Promise.resolve({ status: 201, body: json, headers: { location: String(json.url) } });
  },

  'issues/list-comments': (ctx, req) => {
    const repo = repoOf(ctx, req);
    const number = Number(req.params.issue_number);
    if (!repo || !ctx.state.pull(repo, number)) return Promise.resolve(notFound());
    const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30), 1), 100);
    const page = Math.max(Number(req.query.get('page') ?? 1), 1);
    const all = ctx.state.commentsOf(repo, number);
    return Promise.resolve({
      status: 200,
      body: all.slice((page - 1) * perPage, page * perPage).map((c) => issueCommentJson(ctx.base, repo, c)),
    });
  },

  'issues/update-comment': (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return Promise.resolve(notFound());
    // GitHub announces an App's edit like anyone's (issue_comment.edited).
    const comment = ctx.state.editCommentAs(
      repo,
      Number(req.params.comment_id),
      (req.body as { body: string }).body,
      botOf(ctx.app),
    );
    if (!comment) return Promise.resolve(notFound());
    return Promise.resolve({ status: 200, body: issueCommentJson(ctx.base, repo, comment) });
  },

  'checks/create': async (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return notFound();
    const body = req.body as CheckRunWrite & { head_sha: string };
    const sha = await ctx.state.resolveCommit(repo, body.head_sha);
    if (!sha) return validationFailed('CheckRun', `No commit found for SHA: ${body.head_sha}`);
    const run = ctx.state.writeAppCheckRun(repo, { sha, ...checkRunInput(body) }, botOf(ctx.app))!;
    return { status: 201, body: checkRunJson(ctx.base, repo, run, ctx.app.id, 'railyard') };
  },

  'checks/update': (ctx, req) => {
    const repo = repoOf(ctx, req);
    if (!repo) return Promise.resolve(notFound());
    const id = Number(req.params.check_run_id);
    const held = ctx.state.checkRuns.find((r) => r.id === id && r.byApp);
    if (!held) return Promise.resolve(notFound());
    const body = req.body as CheckRunWrite;
    const run = ctx.state.writeAppCheckRun(
      repo,
      { id, sha: held.headSha, ...checkRunInput({ name: held.name, ...body }) },
      botOf(ctx.app),
    )!;
    return Promise.resolve({ status: 200, body: checkRunJson(ctx.base, repo, run, ctx.app.id, 'railyard') });
  },

  'apps/list-webhook-deliveries': (ctx, req) => {
    const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30), 1), 100);
    const cursor = req.query.get('cursor');
    const status = req.query.get('status');
    const from = cursor === null ? null : DELIVERY_CURSOR.exec(cursor);
    if (cursor !== null && !from)
      return Promise.resolve(validationFailed('WebhookDelivery', 'The cursor is not valid.'));
    const listed = ctx.webhooks
      .attempted()
      .filter((d) => !from || d.id <= Number(from[1]))
      .filter((d) => {
        const code = d.statusCode ?? 0;
        if (status === 'success') return code >= 200 && code <= 399;
        if (status === 'failure') return code >= 400 && code <= 599;
        return true;
      });
    const next = listed[perPage];
    const headers: Record<string, string> = {};
    if (next) {
      const query = new URLSearchParams({ per_page: String(perPage), cursor: `v1_${next.id}` });
      if (status) query.set('status', status);
      headers.link = `<${ctx.base}/app/hook/deliveries?${query.toString()}>; rel="next"`;
    }
    return Promise.resolve({
      status: 200,
      headers,
      body: listed.slice(0, perPage).map((d) => ({
        id: d.id,
        guid: d.guid,
        delivered_at: iso(d.deliveredAt ?? new Date()),
        redelivery: d.redelivery,
        duration: Math.round(d.durationMs) / 1000,
        status: d.status,
        status_code: d.statusCode ?? 0,
        event: d.event,
        action: d.action,
        installation_id: d.installationId,
        repository_id: d.repositoryId,
        throttled_at: null,
      })),
    });
  },

  'apps/redeliver-webhook-delivery': (ctx, req) => {
    const queued = ctx.webhooks.redeliver(Number(req.params.delivery_id));
    return Promise.resolve(queued ? { status: 202, body: {} } : notFound());
  },
};

// The git data writes answer the commit they made as `git/get-commit` reads it.
Object.assign(handlers, gitRefHandlers(handlers['git/get-commit']!));

export async function handleRest(ctx: RestContext, req: RestRequest): Promise<RestAnswer> {
  const handler = handlers[req.operationId];
  if (!handler) return answer(404, `fakehub has no handler for ${req.operationId}`);
  return handler(ctx, req);
}

/** The fields of `POST /check-runs` and `PATCH /check-runs/{id}` the fake keeps. */
interface CheckRunWrite {
  name?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: NonNullable<CheckRun['conclusion']>;
  external_id?: string;
  details_url?: string;
  output?: { title?: string; summary?: string };
}

function checkRunInput(body: CheckRunWrite) {
  // GitHub: a conclusion completes the run.
  const status = body.conclusion ? 'completed' : (body.status ?? 'queued');
  return {
    name: body.name ?? '',
    status,
    conclusion: body.conclusion ?? null,
    byApp: {
      externalId: body.external_id ?? null,
      title: body.output?.title ?? null,
      summary: body.output?.summary ?? null,
      detailsUrl: body.details_url ?? null,
    },
  } as const;
}
