/**
 * The quarantine check for CI (Trunk's CLI does the same through getQuarantineConfig): a job posts
 * the tests that failed, by id or by the identity fields its JUnit gave them, and learns which are
 * quarantined and whether the run passes — it does when every failure is quarantined. Ids are
 * computed with the same testCaseId() ingestion uses, so `name`/`classname`/`file`/`parent`/`variant`
 * as the report wrote them find the test.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { testCaseId } from '../../../flaky/identity';
import { CheckQuarantineRequest, CheckQuarantineResponse } from './admin-schemas';
import { type FlakyRouteDeps, tags } from './deps';
import { organisationFor, repositoryFor } from './scope';

export function quarantineCheckRoutes({ store }: FlakyRouteDeps) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/flaky-tests/check-quarantine',
      {
        schema: {
          tags,
          summary: 'Which failed tests of a CI run are quarantined, and whether the run passes.',
          body: CheckQuarantineRequest,
          response: { 200: CheckQuarantineResponse },
        },
      },
      async (request) => {
        const body = request.body;
        const repository = await repositoryFor(store, request, body);
        const organisation = organisationFor(request, body.org_url_slug);
        const failed = body.failed_tests.map((t) => ({
          id:
            t.test_id ??
            testCaseId({
              organisationSlug: organisation.slug,
              repository: repository.key,
              name: t.name ?? '',
              ...(t.classname === undefined ? {} : { classname: t.classname }),
              ...(t.file === undefined ? {} : { file: t.file }),
              ...(t.parent === undefined ? {} : { parent: t.parent }),
              ...(t.variant === undefined ? {} : { variant: t.variant }),
            }),
          name: t.name ?? null,
        }));
        const check = await store.checkQuarantine(
          repository,
          failed.map((t) => t.id),
        );
        const names = new Map(failed.map((t) => [t.id, t.name]));
        return {
          run_passes: check.runPasses,
          quarantining_enabled: repository.quarantine.enabled,
          tests: check.tests.map((t) => ({
            test_id: t.testId,
            name: names.get(t.testId) ?? null,
            known: t.known,
            status: t.status,
            quarantined: t.verdict.quarantined,
            quarantine_setting: t.verdict.quarantined ? t.verdict.setting : null,
          })),
        };
      },
    );
  };
}
