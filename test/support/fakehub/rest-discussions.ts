/**
 * fakehub's REST behaviour around PR conversations that commands need (rest.ts spreads these into its
 * handlers): reactions to comments and a user's permission on a repository.
 *
 * Rules, as GitHub:
 * - `POST /issues/comments/{id}/reactions` reacts as the App's bot: 201 with the new reaction, or 200
 *   with the one the bot already left with that content (one per user and content); 404 for a comment
 *   of another repository, or a repository the token does not cover.
 * - `GET /collaborators/{username}/permission` answers the role a test gave the login
 *   (`hub().setPermission`) with its base `permission` (maintain reports write, triage read); a login
 *   without one answers 404, as GitHub does for a login that is not a user.
 */
import { collaboratorPermissionJson, reactionJson } from './payloads';
import type { RestAnswer, RestContext, RestRequest } from './rest';
import type { ReactionContent, Repository } from './state';

const DOCS = 'https://docs.github.com/rest';
const notFound = (): Promise<RestAnswer> =>
  Promise.resolve({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });

/** The repository of the request, when the token's installation covers it. */
function repositoryOf(ctx: RestContext, req: RestRequest): Repository | null {
  const repo = ctx.state.repository(String(req.params.owner), String(req.params.repo));
  if (!repo || (req.installationId !== null && repo.installationId !== req.installationId)) return null;
  return repo;
}

export const discussionHandlers: Record<string, (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>> =
  {
    'reactions/create-for-issue-comment': (ctx, req) => {
      const repo = repositoryOf(ctx, req);
      const comment = repo ? ctx.state.comment(repo, Number(req.params.comment_id)) : undefined;
      if (!comment) return notFound();
      const content = (req.body as { content: ReactionContent }).content;
      const { reaction, created } = ctx.state.react(comment, content, {
        login: `${ctx.app.slug}[bot]`,
        type: 'Bot',
      });
      return Promise.resolve({ status: created ? 201 : 200, body: reactionJson(ctx.base, reaction) });
    },

    'repos/get-collaborator-permission-level': (ctx, req) => {
      const repo = repositoryOf(ctx, req);
      const login = String(req.params.username);
      const role = repo ? ctx.state.roleOf(repo, login) : undefined;
      if (!role) return notFound();
      return Promise.resolve({ status: 200, body: collaboratorPermissionJson(ctx.base, login, role) });
    },
  };
