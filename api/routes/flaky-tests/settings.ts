/**
 * Repository settings and per-test quarantine overrides. update-repository-settings creates the
 * repository when it has no uploads yet, so quarantining can be configured before the first run;
 * every other call needs the repository to exist. Who changed what, and when, is stored with it; an
 * override can carry an expiry and an owner (docs/flaky-tests.md §5 "Quarantine lifecycle").
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ClassificationParamsError } from '../../../flaky/classification';
import { QuarantineInputError } from '../../../flaky/quarantine';
import type { RepositoryRecord } from '../../../flaky/service';
import { badRequest } from '../../errors';
import { RepoScopedRequest } from '../../schemas/flaky-tests';
import {
  QuarantineOverrideView,
  RepositoryQuery,
  RepositorySettings,
  SetQuarantineOverrideRequest,
  UpdateRepositorySettingsRequest,
} from './admin-schemas';
import { type FlakyRouteDeps, tags } from './deps';
import { actorOf, organisationFor, repositoryFor, testNotFound } from './scope';
import type { Links } from './wire';

export function settingsRoutes({ store, links }: FlakyRouteDeps) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/flaky-tests/get-repository-settings',
      {
        schema: {
          tags,
          summary: 'Quarantine and classification settings of a repository.',
          body: RepoScopedRequest,
          response: { 200: RepositorySettings },
        },
      },
      async (request) => settingsView(await repositoryFor(store, request, request.body), links),
    );

    r.get(
      '/flaky-tests/repository',
      {
        schema: {
          tags,
          summary: 'A repository’s settings (what repository.html_url points at).',
          querystring: RepositoryQuery,
          response: { 200: RepositorySettings },
        },
      },
      async (request) => settingsView(await repositoryFor(store, request, { repo: request.query }), links),
    );

    r.post(
      '/flaky-tests/update-repository-settings',
      {
        schema: {
          tags,
          summary: 'Change quarantine switches, classification parameters or the ticket link template.',
          body: UpdateRepositorySettingsRequest,
          response: { 200: RepositorySettings },
        },
        // Settings create the repository's flaky-test record: a first use (plugins/repository-access.ts).
        config: { repository: 'first-use' },
      },
      async (request) => {
        const body = request.body;
        const organisation = organisationFor(request, body.org_url_slug);
        try {
          const updated = await store.updateSettings(
            organisation.id,
            body.repo,
            {
              ...(body.quarantine?.enabled === undefined
                ? {}
                : { quarantineEnabled: body.quarantine.enabled }),
              ...(body.quarantine?.auto_quarantine === undefined
                ? {}
                : { autoQuarantine: body.quarantine.auto_quarantine }),
              ...(body.quarantine?.release_after_clean_runs === undefined
                ? {}
                : { releaseAfterCleanRuns: body.quarantine.release_after_clean_runs }),
              ...(body.classification === undefined ? {} : { classification: body.classification }),
              ...(body.ticket_url_template === undefined
                ? {}
                : { ticketUrlTemplate: body.ticket_url_template }),
            },
            actorOf(request, body.actor),
          );
          return settingsView(updated, links);
        } catch (err) {
          if (err instanceof ClassificationParamsError || err instanceof QuarantineInputError)
            throw badRequest(err.message);
          throw err;
        }
      },
    );

    r.post(
      '/flaky-tests/set-quarantine-override',
      {
        schema: {
          tags,
          summary: 'Always or never quarantine one test, or go back to the repository default (UNSPECIFIED).',
          body: SetQuarantineOverrideRequest,
          response: { 200: QuarantineOverrideView },
        },
      },
      async (request) => {
        const body = request.body;
        const repository = await repositoryFor(store, request, body);
        const found = await store
          .setQuarantineOverride(repository, body.test_id, {
            override: body.override,
            actor: actorOf(request, body.actor),
            ...(body.reason === undefined ? {} : { reason: body.reason }),
            ...(body.expires_at === undefined ? {} : { expiresAt: new Date(body.expires_at) }),
            ...(body.owner === undefined ? {} : { owner: body.owner }),
          })
          .catch((err: unknown) => {
            if (err instanceof QuarantineInputError) throw badRequest(err.message);
            throw err;
          });
        const record = found ? await store.getTest(repository, body.test_id) : null;
        if (record === null) throw testNotFound(body.test_id, body.repo);
        return {
          test_id: record.id,
          override: record.override.value,
          set_by: record.override.by,
          set_at: record.override.at?.toISOString() ?? null,
          reason: record.override.reason,
          expires_at: record.override.expiresAt?.toISOString() ?? null,
          owner: record.override.owner,
          quarantined: record.quarantine.quarantined,
        };
      },
    );
  };
}

function settingsView(repository: RepositoryRecord, links: Links) {
  return {
    repo: repository.key,
    html_url: links.repository(repository.key),
    quarantine: {
      enabled: repository.quarantine.enabled,
      auto_quarantine: repository.quarantine.autoQuarantine,
      changed_at: repository.quarantineChangedAt.toISOString(),
      release_after_clean_runs: repository.releaseAfterCleanRuns,
    },
    classification: { ...repository.classification },
    effective_classification: { ...repository.params },
    ticket_url_template: repository.ticketUrlTemplate,
    updated_at: repository.settingsUpdatedAt?.toISOString() ?? null,
    updated_by: repository.settingsUpdatedBy,
  };
}
