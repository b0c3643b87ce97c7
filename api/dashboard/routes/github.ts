/**
 * /ui/github: the organisation's GitHub App installations and the linking flow that needs proof
 * (docs/adr/0015-installation-linking-proof.md).
 *
 * - POST /ui/github/link (CSRF-checked like every form): an installation already the organisation's is
 *   listed again at once; any other gets a one-use `state` bound to this dashboard session, the
 *   organisation and the installation id, and a link to GitHub's page that asks the person to
 *   authorise the app (a link, not a redirect: the CSP's form-action keeps forms on this site).
 * - GET /ui/github/callback (GitHub's redirect, the app's "Callback URL"): the state must be live, unused
 *   and this session's (consumed whatever happens next, so it cannot be replayed), and an
 *   `installation_id` on the redirect (GitHub adds one after a fresh install) must be the state's.
 *   The `code` becomes a user token, which must show that the person administers the installation's
 *   account; then the installation is linked as through the API, with the API's answers (one answer for
 *   unknown, taken and not administered installations).
 * - Binding the state to the session is what makes a link sent to someone else useless: GitHub may
 *   redirect a person who authorised the app before straight back, so a state alone would let another
 *   organisation have a victim's browser prove it for them.
 * The user token is used for the proof and forgotten; the code and state are never logged (the request
 * log records paths without query strings).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, forbidden } from '../../errors';
import { linkForOrganisation, OPERATOR_LINKS_ONLY } from '../../routes/github/installations';
import type { UiRouteDeps } from './deps';
import { parse, render } from './forms';
import { cookieNames, sessionOf } from './guard';
import { GitHubAuthError } from '../../../github/app/app-auth';
import { unavailable } from '../../errors';

const InstallationId = z.coerce
  .number({ message: 'must be a number' })
  .int({ message: 'must be a whole number' })
  .min(1, { message: 'must be a positive number' })
  .max(Number.MAX_SAFE_INTEGER, { message: 'is too large' });

const LinkForm = z.object({ installation_id: InstallationId });
const Callback = z.object({
  state: z.string().max(200).optional(),
  code: z.string().max(200).optional(),
  installation_id: InstallationId.optional(),
  setup_action: z.string().max(50).optional(),
});

const STATE_REFUSED =
  'This GitHub link request is unknown, already used, expired, or was started in another browser session; start again from the GitHub page of the dashboard.';

export function gitHubPages(deps: UiRouteDeps) {
  return (app: FastifyInstance): void => {
    const gitHub = deps.gitHub;
    if (!gitHub) return;
    const names = cookieNames(deps.publicUrl);

    /** Why this organisation cannot link here, or null when it can. */
    const whyNot = (): string | null =>
      deps.access.claims === 'operator'
        ? OPERATOR_LINKS_ONLY
        : gitHub.oauth === undefined
          ? "Linking from the dashboard needs the GitHub App's client id and secret (RAILYARD_GITHUB_CLIENT_ID, RAILYARD_GITHUB_CLIENT_SECRET), which this server does not have; ask your railyard operator."
          : null;

    const page = async (
      request: Parameters<typeof render>[1],
      reply: Parameters<typeof render>[2],
      extra: { message?: string; continueUrl?: string } = {},
    ) =>
      render(deps, request, reply, 'github', {
        title: 'GitHub installations',
        installations: await gitHub.store.list(sessionOf(request).organisation.id),
        linking: whyNot() === null,
        whyNot: whyNot(),
        ...extra,
      });

    const linked = async (
      request: Parameters<typeof render>[1],
      reply: Parameters<typeof render>[2],
      id: number,
      userToken: string | null,
    ) => {
      const outcome = await linkForOrganisation(gitHub, sessionOf(request).organisation.id, id, userToken);
      if (outcome.provenBy !== undefined)
        request.log.info(
          { installationId: id, githubUser: outcome.provenBy },
          'GitHub App installation linked with proof',
        );
      const s = outcome.sync;
      const elsewhere =
        s.ownedElsewhere.length === 0
          ? ''
          : ` ${s.ownedElsewhere.length} covered ${s.ownedElsewhere.length === 1 ? 'repository stays' : 'repositories stay'} with the organisation that claimed ${s.ownedElsewhere.length === 1 ? 'it' : 'them'} before; ask your operator.`;
      return page(request, reply, {
        message: `GitHub App installation ${id} (${outcome.installation.accountLogin}) is ${outcome.kind === 'linked' ? 'linked' : 'yours; its repositories were listed again'}: ${s.covered} ${s.covered === 1 ? 'repository' : 'repositories'}.${elsewhere}`,
      });
    };

    app.get('/ui/github', (request, reply) => page(request, reply));

    app.post('/ui/github/link', async (request, reply) => {
      const { installation_id: id } = parse(LinkForm, request.body, 'body');
      const refusal = whyNot();
      if (refusal !== null) throw forbidden(refusal);
      const org = sessionOf(request).organisation;
      if ((await gitHub.store.find(id))?.organisationId === org.id) return linked(request, reply, id, null);
      const state = await gitHub.oauth!.states.issue({
        organisationId: org.id,
        sessionId: request.cookies[names.session] ?? '',
        installationId: id,
      });
      return page(request, reply, { continueUrl: gitHub.oauth!.exchange.authorizeUrl(state) });
    });

    app.get('/ui/github/callback', async (request, reply) => {
      const q = parse(Callback, request.query, 'querystring');
      const refusal = whyNot();
      if (refusal !== null) throw forbidden(refusal);
      const org = sessionOf(request).organisation;
      const bound =
        q.state === undefined
          ? null
          : await gitHub.oauth!.states.consume(q.state, request.cookies[names.session] ?? '');
      if (bound === null || bound.organisationId !== org.id) throw badRequest(STATE_REFUSED);
      if (q.installation_id !== undefined && q.installation_id !== bound.installationId)
        throw badRequest(
          `GitHub sent installation ${q.installation_id}, but this link request was for installation ${bound.installationId}; start again from the GitHub page of the dashboard.`,
        );
      if (q.code === undefined)
        throw badRequest("GitHub's redirect has no 'code' (the app was not authorised); start again.");
      let userToken: string | null;
      try {
        userToken = await gitHub.oauth!.exchange.exchangeCode(q.code);
      } catch (err) {
        if (err instanceof GitHubAuthError) throw unavailable(`${err.message} Try again later.`);
        throw err;
      }
      if (userToken === null)
        throw badRequest('GitHub refused the authorisation code (it is used or expired); start again.');
      return linked(request, reply, bound.installationId, userToken);
    });
  };
}
