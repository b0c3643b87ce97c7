/**
 * fakehub's git data writes: `POST /git/commits` (a commit object from a tree and parents) and the ref
 * writes `POST /git/refs`, `PATCH /git/refs/{ref}`, `DELETE /git/refs/{ref}` (railyard's preflight,
 * github/host/preflight-branch.ts). rest.ts spreads these handlers into its own.
 *
 * Rules, as GitHub:
 * - 404 for a repository the token's installation does not cover; 422 for a commit whose tree or parent
 *   the repository does not hold, a ref not under `refs/` with two slashes, a ref that exists already
 *   ("Reference already exists"), an update or deletion of a missing ref ("Reference does not exist"),
 *   and an update that is not a fast-forward without `force` ("Update is not a fast forward"). A refused
 *   deletion is a 422 without a body: the description documents none for it.
 * - A ref write is a push made by the App's bot: branch protection refuses it the way the pre-receive
 *   hook refuses a git push (state.refusals: 422 with GitHub's protected-branch sentence), and an
 *   accepted one is announced as a push is (state.afterPush: `push` webhooks, PR heads follow their
 *   branch, a deleted head branch closes its PR).
 * - The ref moves by compare-and-swap from the value read first, so two writers never lose an update.
 */
import type { FakeApp } from './app-auth';
import type { RestAnswer, RestContext, RestRequest } from './rest';
import { ZERO_SHA, type FakeHubState, type Pusher, type Repository } from './state';

type Handler = (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>;

const DOCS = 'https://docs.github.com/rest/git/refs';
const answer = (status: number, message: string): RestAnswer => ({
  status,
  body: { message, documentation_url: DOCS },
});
const notFound = (): RestAnswer => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: DOCS, status: '404' },
});
const SHA = /^[0-9a-f]{40}$/;
/** GitHub: "If it doesn't start with 'refs' and have at least two slashes, it will be rejected." */
const QUALIFIED_REF = /^refs\/[^/]+\/.+/;

function repoOf(ctx: RestContext, req: RestRequest): Repository | null {
  const repo = ctx.state.repository(String(req.params.owner), String(req.params.repo));
  if (!repo) return null;
  if (req.installationId !== null && repo.installationId !== req.installationId) return null;
  return repo;
}

const pusherOf = (app: FakeApp): Pusher => ({ kind: 'app', appId: app.id, login: `${app.slug}[bot]` });

async function objectType(state: FakeHubState, repo: Repository, sha: string): Promise<string | null> {
  if (!SHA.test(sha)) return null;
  const r = await state.git(['cat-file', '-t', sha], { dir: repo.bare });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

async function refValue(state: FakeHubState, repo: Repository, ref: string): Promise<string | null> {
  const r = await state.git(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
    dir: repo.bare,
  });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

function refJson(ctx: RestContext, repo: Repository, ref: string, sha: string) {
  const url = `${ctx.base}/repos/${repo.owner}/${repo.name}`;
  return {
    ref,
    node_id: `REF_${Buffer.from(ref).toString('base64url')}`,
    url: `${url}/git/${ref}`,
    object: { type: 'commit', sha, url: `${url}/git/commits/${sha}` },
  };
}

/** Moves `ref` from `oldSha` to `newSha` (ZERO_SHA: create / delete) as the App's push would. */
async function writeRef(
  ctx: RestContext,
  repo: Repository,
  ref: string,
  oldSha: string,
  newSha: string,
  fastForward: boolean | null,
): Promise<RestAnswer | null> {
  const pusher = pusherOf(ctx.app);
  const update = { ref, oldSha, newSha, fastForward };
  const refused = ctx.state.refusals(repo, [update], pusher);
  if (refused.length > 0) return answer(422, refused.map((l) => l.replace(/^error: /, '')).join(' '));
  const args = newSha === ZERO_SHA ? ['update-ref', '-d', ref, oldSha] : ['update-ref', ref, newSha, oldSha];
  const r = await ctx.state.git(args, { dir: repo.bare });
  if (r.exitCode !== 0) return answer(409, 'Reference update failed');
  await ctx.state.afterPush(repo, [update], pusher);
  return null;
}

export function gitRefHandlers(getCommit: Handler): Record<string, Handler> {
  return {
    'git/create-commit': async (ctx, req) => {
      const repo = repoOf(ctx, req);
      if (!repo) return notFound();
      const body = req.body as { message: string; tree: string; parents?: string[] };
      if ((await objectType(ctx.state, repo, body.tree)) !== 'tree')
        return answer(422, 'Tree SHA does not exist');
      const parents = body.parents ?? [];
      for (const p of parents)
        if ((await objectType(ctx.state, repo, p)) !== 'commit')
          return answer(422, 'Parent SHA does not exist');
      const identity = `${ctx.app.slug}[bot]`;
      const made = await ctx.state.git(
        ['commit-tree', body.tree, ...parents.flatMap((p) => ['-p', p]), '-m', body.message],
        {
          dir: repo.bare,
          env: {
            GIT_AUTHOR_NAME: identity,
            GIT_AUTHOR_EMAIL: `${ctx.app.id}+${ctx.app.slug}@users.noreply.github.com`,
            GIT_COMMITTER_NAME: 'GitHub',
            GIT_COMMITTER_EMAIL: 'noreply@github.com',
          },
        },
      );
      if (made.exitCode !== 0) return answer(422, 'Could not create the commit');
      const read = await getCommit(ctx, {
        ...req,
        params: { ...req.params, commit_sha: made.stdout.trim() },
      });
      return read.status === 200 ? { ...read, status: 201 } : read;
    },

    'git/create-ref': async (ctx, req) => {
      const repo = repoOf(ctx, req);
      if (!repo) return notFound();
      const body = req.body as { ref: string; sha: string };
      if (!QUALIFIED_REF.test(body.ref) || body.ref.includes('..'))
        return answer(422, `${body.ref} is not a valid ref name.`);
      if ((await objectType(ctx.state, repo, body.sha)) !== 'commit')
        return answer(422, 'Object does not exist');
      if ((await refValue(ctx.state, repo, body.ref)) !== null)
        return answer(422, 'Reference already exists');
      const refused = await writeRef(ctx, repo, body.ref, ZERO_SHA, body.sha, null);
      return refused ?? { status: 201, body: refJson(ctx, repo, body.ref, body.sha) };
    },

    'git/update-ref': async (ctx, req) => {
      const repo = repoOf(ctx, req);
      if (!repo) return notFound();
      const ref = `refs/${String(req.params.ref)}`;
      const body = req.body as { sha: string; force?: boolean };
      if (ref.includes('..')) return answer(422, 'Reference does not exist');
      const old = await refValue(ctx.state, repo, ref);
      if (old === null) return answer(422, 'Reference does not exist');
      if ((await objectType(ctx.state, repo, body.sha)) !== 'commit')
        return answer(422, 'Object does not exist');
      const ff = await ctx.state.isAncestor(repo, old, body.sha);
      if (!ff && !body.force) return answer(422, 'Update is not a fast forward');
      const refused = await writeRef(ctx, repo, ref, old, body.sha, ff);
      return refused ?? { status: 200, body: refJson(ctx, repo, ref, body.sha) };
    },

    'git/delete-ref': async (ctx, req) => {
      const repo = repoOf(ctx, req);
      if (!repo) return notFound();
      const ref = `refs/${String(req.params.ref)}`;
      // The description documents this operation's 422 without a body, so the fake sends none.
      const old = ref.includes('..') ? null : await refValue(ctx.state, repo, ref);
      if (old === null) return { status: 422 };
      const refused = await writeRef(ctx, repo, ref, old, ZERO_SHA, null);
      return refused ? { status: refused.status } : { status: 204 };
    },
  };
}
