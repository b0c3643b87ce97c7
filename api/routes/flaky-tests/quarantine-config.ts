/**
 * POST /v1/metrics/getQuarantineConfig: Trunk's quarantine lookup, as trunk-analytics-cli and its
 * language plugins send it (../shared/reference/trunk-clients.md §2.6 step 3, §2.8). The CLI sends
 * the tests that failed and turns the run into a pass when every failure's `id` is in `testIds`; the
 * plugins send no tests and get every quarantined id of the repository.
 *
 * Rules:
 * - `orgUrlSlug` must name the key's organisation (404 otherwise, which the CLI explains as a wrong
 *   slug); the repository must be the organisation's (the repository-access plugin, 404).
 * - `isDisabled` when quarantining is off for the repository (or it has no flaky-test data yet, where
 *   quarantining is off by default); `testIds` is then empty.
 * - A named test is matched by every id it may have here: the client's `id`, the id recomputed from
 *   its fields (identity.ts, with the key's organisation slug), and with the file railyard derives
 *   (a normalised path, pytest's file from its classname). A quarantined test is answered with the
 *   client's own `id` string, which is what the CLI compares, and with railyard's id.
 * - Bounds: at most MAX_TEST_IDENTIFIERS tests (413 past it), identity fields of at most 2,000
 *   characters and ids of at most 200 (400), within the app's body limit.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { parseUuid, testCaseId, type TestCaseKey } from '../../../flaky/identity';
import { normaliseFilePath } from '../../../flaky/junit/dialects/generic';
import { pytestFileFromClassname } from '../../../flaky/junit/dialects/pytest';
import type { Organisation } from '../../../stores/api-keys';
import type { RepositoryKey } from '../../../contract';
import { RepoRef } from '../../schemas/common';
import { EXAMPLE_ORG_SLUG, EXAMPLE_REPO, EXAMPLE_TEST, withExample } from '../../schemas/examples';
import { type FlakyRouteDeps, tags } from './deps';
import { organisationFor } from './scope';

export const MAX_TEST_IDENTIFIERS = 10_000;

const field = z.string().max(2000);
const optionalField = field.nullable().optional();

// Trunk's `Test` (analytics-cli bundle/src/types.rs): the fields railyard reads are bounded; the
// others (timestamp, failure message) are accepted within the body limit and not used.
const TestIdentifier = z.object({
  name: field,
  parentName: field.optional(),
  className: optionalField,
  file: optionalField,
  id: z.string().max(200).optional(),
  variant: z.string().max(255).nullable().optional(),
  timestamp_millis: z.number().nullable().optional(),
  is_quarantined: z.boolean().optional(),
  failure_message: z.string().nullable().optional(),
});
type TestIdentifier = z.infer<typeof TestIdentifier>;

const GetQuarantineConfigRequest = withExample(
  z.object({
    repo: RepoRef,
    remoteUrls: z.array(z.string().max(2000)).max(100).optional(),
    orgUrlSlug: z.string().trim().min(1).max(63),
    testIdentifiers: z.array(TestIdentifier),
  }),
  // What trunk-analytics-cli asks for the demo's failing test (Trunk's field names).
  {
    repo: EXAMPLE_REPO,
    orgUrlSlug: EXAMPLE_ORG_SLUG,
    testIdentifiers: [
      { name: EXAMPLE_TEST.name, className: EXAMPLE_TEST.classname, parentName: EXAMPLE_TEST.parent },
    ],
  },
);

const GetQuarantineConfigResponse = z.object({
  isDisabled: z.boolean().describe('Quarantining is off for the repository.'),
  testIds: z
    .array(z.string())
    .describe('The quarantined ones of the named tests (all of them when none is named).'),
});

export function quarantineConfigRoutes({ store }: FlakyRouteDeps) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().post(
      '/metrics/getQuarantineConfig',
      {
        schema: {
          tags,
          summary: "Trunk's quarantine lookup for trunk-analytics-cli and its plugins.",
          description: `At most ${MAX_TEST_IDENTIFIERS} testIdentifiers; none: every quarantined test id of the repository.`,
          body: GetQuarantineConfigRequest,
          response: { 200: GetQuarantineConfigResponse },
        },
        // The CLI on a fork's PR sends the repository's public id instead of a key (plugins/fork-auth.ts).
        config: { forkAuth: 'public-repo-id' },
      },
      async (request) => {
        const body = request.body;
        const organisation = organisationFor(request, body.orgUrlSlug);
        if (body.testIdentifiers.length > MAX_TEST_IDENTIFIERS)
          throw tooManyTests(body.testIdentifiers.length);
        const repository = await store.findRepository(organisation.id, body.repo);
        if (repository === null || !repository.quarantine.enabled) return { isDisabled: true, testIds: [] };
        if (body.testIdentifiers.length === 0)
          return { isDisabled: false, testIds: await store.quarantinedTestIds(repository) };
        const candidates = body.testIdentifiers.map((test) => candidateIds(organisation, body.repo, test));
        const check = await store.checkQuarantine(repository, [...new Set(candidates.flat())]);
        const quarantined = new Set(check.tests.filter((t) => t.verdict.quarantined).map((t) => t.testId));
        const testIds = new Set<string>();
        body.testIdentifiers.forEach((test, i) => {
          const found = candidates[i]!.find((id) => quarantined.has(id));
          if (found === undefined) return;
          if (test.id !== undefined && test.id !== '') testIds.add(test.id);
          testIds.add(found);
        });
        return { isDisabled: false, testIds: [...testIds] };
      },
    );
  };
}

const tooManyTests = (count: number) =>
  Object.assign(
    new Error(
      `Field 'testIdentifiers' names ${count} tests; at most ${MAX_TEST_IDENTIFIERS} are allowed in one request.`,
    ),
    { statusCode: 413 },
  );

/** Every id the test may be stored under, canonical UUIDs only (the column is a uuid). */
function candidateIds(organisation: Organisation, repository: RepositoryKey, test: TestIdentifier): string[] {
  const variant = test.variant ?? '';
  const key: TestCaseKey = {
    organisationSlug: organisation.slug,
    repository,
    name: test.name,
    parent: test.parentName ?? '',
    classname: test.className ?? '',
    variant,
  };
  const file = test.file ?? '';
  const ids = [testCaseId({ ...key, file })];
  const own = test.id === undefined ? undefined : parseUuid(test.id);
  if (own !== undefined) ids.push(own.canonical);
  if (test.id !== undefined && test.id !== '') ids.push(testCaseId({ ...key, file, existingId: test.id }));
  const derived =
    file.trim() !== '' ? normaliseFilePath(file.trim()) : pytestFileFromClassname(key.classname ?? '');
  if (derived !== undefined && derived !== file) ids.push(testCaseId({ ...key, file: derived }));
  return [...new Set(ids)];
}
