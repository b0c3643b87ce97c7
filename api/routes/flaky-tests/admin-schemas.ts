/**
 * Requests and responses of the flaky-test administration endpoints, which the spec leaves to us:
 * repository settings (quarantine switches, classification parameters, ticket links), per-test
 * quarantine overrides, and the CI quarantine check. Field names follow the flaky area's snake_case;
 * classification parameters keep the names of docs/flaky-tests.md §3 (camelCase), which is also how
 * their validation errors name them.
 */
import { z } from 'zod';
import { CLASSIFICATION_BOUNDS, jsonSchemaBounds, type NumberKey } from '../../../flaky/classification';
import { MAX_OVERRIDE_DAYS, QUARANTINE_OVERRIDES } from '../../../flaky/quarantine';
import { RELEASE_AFTER_CLEAN_RUNS } from '../../../flaky/quarantine-release';
import { RepoRef } from '../../schemas/common';
import {
  EXAMPLE_ORG_SLUG,
  EXAMPLE_REPO,
  EXAMPLE_TEST,
  EXAMPLE_TEST_ID,
  EXAMPLE_TICKET,
  withExample,
} from '../../schemas/examples';
import { DateTime, NO_CONTROL, NO_NUL, RepoScopedRequest, TestId } from '../../schemas/flaky-tests';

const Actor = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(NO_CONTROL, { message: 'must not contain control characters' })
  .describe('Who makes the change; defaults to the API key prefix.');
// The ranges are checked by resolveClassificationParams (one sentence per parameter, the same rule
// for stored settings); here they only reach the document.
const num = (key: NumberKey) => z.number().meta(jsonSchemaBounds(CLASSIFICATION_BOUNDS[key]));
const branches = z
  .array(z.string().min(1).max(255).regex(NO_CONTROL, { message: 'must not contain control characters' }))
  .max(100);

// A ticket link is answered as a `uri`, so the template must make one once `{ticket}` is replaced by
// the percent-encoded key: http(s), a host name, then only the characters RFC 3986 allows in a path,
// query and fragment (non-ASCII, spaces, other braces, `<>"|^\` and a second `#` are refused).
const URI_CHAR = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2}|\{ticket\})`;
const TICKET_URL_TEMPLATE = new RegExp(
  String.raw`^https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/${URI_CHAR}*)?(?:\?(?:${URI_CHAR}|\?)*)?(?:#(?:${URI_CHAR}|\?)*)?$`,
);
const TICKET_URL_MESSAGE = 'must be an http(s) URL containing {ticket}';
// Every linked test of every list page repeats the template with the key (up to 200 characters,
// three times that percent-encoded) in each `{ticket}`: a few are plenty, hundreds would multiply
// every answer's size.
export const MAX_TICKET_PLACEHOLDERS = 4;
const placeholders = (v: string) => v.split('{ticket}').length - 1;

export const ClassificationOverrides = z
  .strictObject({
    mixedLookbackDays: num('mixedLookbackDays'),
    rateWindowHours: num('rateWindowHours'),
    rateMinAttempts: num('rateMinAttempts'),
    rateOn: num('rateOn'),
    rateOff: num('rateOff'),
    brokenConsecutiveCommits: num('brokenConsecutiveCommits'),
    brokenRateWindowHours: num('brokenRateWindowHours'),
    brokenRateMinAttempts: num('brokenRateMinAttempts'),
    brokenRateOn: num('brokenRateOn'),
    brokenRateOff: num('brokenRateOff'),
    recoverDays: num('recoverDays'),
    recoverPasses: num('recoverPasses'),
    staleDays: num('staleDays'),
    infraFailureRatio: num('infraFailureRatio'),
    infraMinResults: num('infraMinResults'),
    topFailures: num('topFailures'),
    failureWindowDays: num('failureWindowDays'),
    stableBranches: branches,
    mergeQueueBranchPrefixes: branches,
  })
  .partial()
  .describe('Overrides of the classification parameters (docs/flaky-tests.md §3); replaces the stored set.');

const EXAMPLE_SCOPE = { repo: EXAMPLE_REPO, org_url_slug: EXAMPLE_ORG_SLUG };

export const UpdateRepositorySettingsRequest = withExample(
  RepoScopedRequest.extend({
    quarantine: z
      .object({
        enabled: z.boolean().optional(),
        auto_quarantine: z.boolean().optional(),
        // The range is checked by checkReleaseAfterCleanRuns (one sentence naming the field).
        release_after_clean_runs: z
          .number()
          .meta({ minimum: RELEASE_AFTER_CLEAN_RUNS.min, maximum: RELEASE_AFTER_CLEAN_RUNS.max })
          .describe(
            `Consecutive clean runs that release a test quarantined by rule (default ${RELEASE_AFTER_CLEAN_RUNS.default}).`,
          )
          .optional(),
      })
      .optional(),
    classification: ClassificationOverrides.optional(),
    ticket_url_template: z
      .string()
      .max(2000)
      .refine((v) => NO_CONTROL.test(v), { message: 'must not contain control characters' })
      .regex(TICKET_URL_TEMPLATE, { message: TICKET_URL_MESSAGE })
      .refine((v) => v.includes('{ticket}'), { message: TICKET_URL_MESSAGE })
      .refine((v) => placeholders(v) <= MAX_TICKET_PLACEHOLDERS, {
        message: `may contain {ticket} at most ${MAX_TICKET_PLACEHOLDERS} times`,
      })
      .nullable()
      .optional(),
    actor: Actor.optional(),
  }),
  {
    ...EXAMPLE_SCOPE,
    quarantine: { enabled: true, auto_quarantine: true },
    ticket_url_template: 'https://example.atlassian.net/browse/{ticket}',
  },
);
export type UpdateRepositorySettingsRequest = z.infer<typeof UpdateRepositorySettingsRequest>;

export const RepositorySettings = z.object({
  repo: RepoRef,
  html_url: z.url(),
  quarantine: z.object({
    enabled: z.boolean(),
    auto_quarantine: z.boolean(),
    changed_at: z.iso.datetime(),
    release_after_clean_runs: z.number().int(),
  }),
  classification: z.record(z.string(), z.unknown()).describe('The stored overrides.'),
  effective_classification: z
    .record(z.string(), z.unknown())
    .describe('Defaults with the overrides applied.'),
  ticket_url_template: z.string().nullable(),
  updated_at: z.iso.datetime().nullable(),
  updated_by: z.string().nullable(),
});

export const SetQuarantineOverrideRequest = withExample(
  RepoScopedRequest.extend({
    test_id: TestId,
    override: z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(QUARANTINE_OVERRIDES, { error: `must be one of: ${QUARANTINE_OVERRIDES.join(', ')}` })),
    reason: z
      .string()
      .trim()
      .max(1000)
      .regex(NO_NUL, { message: 'must not contain NUL characters' })
      .optional(),
    expires_at: DateTime.describe(
      `When the override stops applying (the test is then UNSPECIFIED); ALWAYS_QUARANTINE or NEVER_QUARANTINE only, at most ${MAX_OVERRIDE_DAYS} days ahead.`,
    ).optional(),
    owner: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .regex(NO_CONTROL, { message: 'must not contain control characters' })
      .describe('Who answers for the override (a person or a team).')
      .optional(),
    actor: Actor.optional(),
  }),
  {
    ...EXAMPLE_SCOPE,
    test_id: EXAMPLE_TEST_ID,
    override: 'ALWAYS_QUARANTINE',
    reason: `Fails about one run in ten; tracked in ${EXAMPLE_TICKET}.`,
  },
);
export type SetQuarantineOverrideRequest = z.infer<typeof SetQuarantineOverrideRequest>;

export const QuarantineOverrideView = z.object({
  test_id: z.uuid(),
  override: z.enum(QUARANTINE_OVERRIDES),
  set_by: z.string().nullable(),
  set_at: z.iso.datetime().nullable(),
  reason: z.string().nullable(),
  expires_at: z.iso.datetime().nullable(),
  owner: z.string().nullable(),
  quarantined: z.boolean(),
});

const FailedTest = z
  .object({
    test_id: TestId.optional(),
    name: z.string().min(1).max(2000).optional(),
    classname: z.string().max(2000).optional(),
    file: z.string().max(2000).optional(),
    parent: z.string().max(2000).optional(),
    variant: z.string().max(255).optional(),
  })
  .refine((t) => t.test_id !== undefined || t.name !== undefined, {
    message: 'must have a test_id or a name',
  });

export const CheckQuarantineRequest = withExample(
  RepoScopedRequest.extend({
    failed_tests: z.array(FailedTest).min(1).max(10_000),
  }),
  // The tests a CI job saw fail, by name as its report has them (a test_id works too).
  { ...EXAMPLE_SCOPE, failed_tests: [EXAMPLE_TEST] },
);
export type CheckQuarantineRequest = z.infer<typeof CheckQuarantineRequest>;

export const CheckQuarantineResponse = z.object({
  run_passes: z.boolean().describe('Every failed test is quarantined: the run may be reported as passed.'),
  quarantining_enabled: z.boolean(),
  tests: z.array(
    z.object({
      test_id: z.uuid(),
      name: z.string().nullable(),
      known: z.boolean(),
      status: z.enum(['healthy', 'flaky', 'broken']).nullable(),
      quarantined: z.boolean(),
      quarantine_setting: z.enum(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']).nullable(),
    }),
  ),
});

export const RepositoryQuery = z.object({
  host: RepoRef.shape.host,
  owner: RepoRef.shape.owner,
  name: RepoRef.shape.name,
});
