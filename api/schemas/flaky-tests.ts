/**
 * Requests and responses of the flaky-test reads (api-spec.md §2.6, §2.7, §4.3; trunk-compat §2):
 * snake_case as Trunk names them. Input rules: `start_time`/`end_time` are offset date-times,
 * end after start and at most 7 days later; `page_size` 1–100; `page_token` opaque ("" or absent for
 * the first page); enums of Trunk's list endpoints in any case. Output schemas carry no transforms:
 * the serializer checks every response against them.
 */
import { z } from 'zod';
import { RepoRef } from './common';
import {
  EXAMPLE_ORG_SLUG,
  EXAMPLE_REPO,
  EXAMPLE_TEST_ID,
  EXAMPLE_TICKET,
  exampleWeek,
  withExample,
} from './examples';

export const MAX_RANGE_MS = 7 * 24 * 3_600_000;

// PostgreSQL text cannot hold NUL: text that is stored refuses it (a 400 naming the field, not a 500).
// eslint-disable-next-line no-control-regex
export const NO_NUL = /^[^\u0000]*$/;
// Names and keys hold no control characters at all.
// eslint-disable-next-line no-control-regex
export const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

// A missing field keeps zod's own issue, which the error handler words as "is required".
export const DateTime = z.iso.datetime({
  offset: true,
  error: (issue) =>
    issue.input === undefined ? undefined : 'must be a date-time such as 2026-01-31T00:00:00Z',
});
export const TestId = z
  .uuid({
    error: (issue) => (issue.input === undefined ? undefined : 'must be a UUID'),
  })
  // The demo's failing test (calc/adds), once its results are in.
  .meta({ example: EXAMPLE_TEST_ID });

export const OrgSlug = z
  .string()
  .trim()
  .min(1)
  .max(63)
  .describe('The slug of the API key’s organisation.')
  .meta({ example: EXAMPLE_ORG_SLUG });

const EXAMPLE_SCOPE = { repo: EXAMPLE_REPO, org_url_slug: EXAMPLE_ORG_SLUG };
const EXAMPLE_PAGE = { page_size: 25 };

export const RepoScopedRequest = withExample(
  z.object({ repo: RepoRef, org_url_slug: OrgSlug }),
  EXAMPLE_SCOPE,
);
export type RepoScopedRequest = z.infer<typeof RepoScopedRequest>;

export const PageQuery = z.object({
  page_size: z.number().int({ message: 'must be an integer' }).min(1).max(100),
  page_token: z
    .string()
    .max(4096)
    .optional()
    .describe('A token from an earlier page; empty for the first page.'),
});

export const ListFailingTestsRequest = withExample(
  RepoScopedRequest.extend({
    start_time: DateTime.describe('Inclusive start of the range.'),
    end_time: DateTime.describe('Exclusive end; after start_time and at most 7 days later.'),
    page_query: PageQuery,
  }).superRefine((request, ctx) => {
    const span = Date.parse(request.end_time) - Date.parse(request.start_time);
    if (span <= 0)
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: "must be after 'start_time'" });
    else if (span > MAX_RANGE_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['end_time'],
        message: "must be at most 7 days after 'start_time'",
      });
  }),
  { ...EXAMPLE_SCOPE, ...exampleWeek(), page_query: EXAMPLE_PAGE },
);
export type ListFailingTestsRequest = z.infer<typeof ListFailingTestsRequest>;

export const GetTestDetailsRequest = withExample(RepoScopedRequest.extend({ test_id: TestId }), {
  ...EXAMPLE_SCOPE,
  test_id: EXAMPLE_TEST_ID,
});
export type GetTestDetailsRequest = z.infer<typeof GetTestDetailsRequest>;

export const ListUnhealthyTestsRequest = withExample(
  RepoScopedRequest.extend({
    status: z
      .string()
      .transform((v) => v.toUpperCase())
      .pipe(z.enum(['FLAKY', 'BROKEN'], { error: 'must be one of: FLAKY, BROKEN' })),
    page_query: PageQuery,
  }),
  { ...EXAMPLE_SCOPE, status: 'FLAKY', page_query: EXAMPLE_PAGE },
);
export type ListUnhealthyTestsRequest = z.infer<typeof ListUnhealthyTestsRequest>;

export const ListQuarantinedTestsRequest = withExample(RepoScopedRequest.extend({ page_query: PageQuery }), {
  ...EXAMPLE_SCOPE,
  page_query: EXAMPLE_PAGE,
});
export type ListQuarantinedTestsRequest = z.infer<typeof ListQuarantinedTestsRequest>;

// eslint-disable-next-line no-control-regex
const TICKET_KEY = /^[^\s\u0000-\u001f\u007f]+$/;
export const TicketKey = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(TICKET_KEY, { message: 'must be a ticket key such as KAN-123' })
  .meta({ example: EXAMPLE_TICKET });

export const LinkTicketRequest = withExample(
  z.object({
    repo: RepoRef,
    test_case_id: TestId,
    external_ticket_id: TicketKey,
  }),
  { repo: EXAMPLE_REPO, test_case_id: EXAMPLE_TEST_ID, external_ticket_id: EXAMPLE_TICKET },
);
export type LinkTicketRequest = z.infer<typeof LinkTicketRequest>;

const Url = z.url();
const Timestamp = z.iso.datetime();

export const TestCaseStatus = z.object({
  value: z.enum(['healthy', 'flaky', 'broken']),
  reason: z.string(),
  timestamp: Timestamp.describe('When the test entered this status.'),
});

export const TestCase = z.object({
  id: z.uuid(),
  repository: z.object({ html_url: Url }),
  html_url: Url,
  name: z.string(),
  variant: z.string(),
  status: TestCaseStatus,
  most_common_failures: z.array(
    z.object({
      summary: z.string(),
      occurrence_count: z.number().int().min(0),
      last_occurrence: Timestamp.optional(),
    }),
  ),
  failure_rate_last_7d: z.number().min(0).max(1).describe('Failing attempts / attempts, 0..1.'),
  failure_rate_last_24h: z.number().min(0).max(1).describe('Failing attempts / attempts, 0..1.'),
  file_path: z.string().optional(),
  parent: z.string().optional(),
  classname: z.string().optional(),
  codeowners: z.array(z.string()),
  pull_requests_impacted_last_7d: z.number().int().min(0),
  quarantined: z.boolean(),
  ticket: z.object({ html_url: Url }).optional(),
});
export type TestCase = z.infer<typeof TestCase>;

export const UnhealthyTestCase = TestCase.omit({
  most_common_failures: true,
  failure_rate_last_7d: true,
  failure_rate_last_24h: true,
});
export type UnhealthyTestCase = z.infer<typeof UnhealthyTestCase>;

export const Page = z.object({
  total_rows: z.number().int().min(0),
  total_pages: z.number().int().min(0),
  next_page_token: z.string().describe('"" on the last page.'),
  prev_page_token: z.string().describe('"" on the first page.'),
  last_page_token: z.string(),
  page_index: z.number().int().min(0).describe('0-based.'),
});
export type Page = z.infer<typeof Page>;

export const ListFailingTestsResponse = z.object({ tests: z.array(TestCase), page: Page });
export const GetTestDetailsResponse = z.object({ test: TestCase });
export const ListUnhealthyTestsResponse = z.object({ tests: z.array(UnhealthyTestCase), page: Page });

export const QuarantinedTest = z.object({
  name: z.string(),
  parent: z.string().nullable(),
  file: z.string().nullable(),
  classname: z.string().nullable(),
  status: z.enum(['HEALTHY', 'FLAKY', 'BROKEN']),
  codeowners: z.array(z.string()),
  quarantine_setting: z.enum(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']),
  quarantined_at: Timestamp,
  status_last_updated_at: Timestamp,
  test_case_id: z.uuid(),
  variant: z.string(),
  // railyard's additive fields (docs/flaky-tests.md §5 "Quarantine lifecycle").
  quarantine_reason: z
    .string()
    .nullable()
    .describe("Why: the override's reason (ALWAYS_QUARANTINE) or the status reason (AUTO_QUARANTINE)."),
  owner: z.string().nullable().describe('Who answers for the override.'),
  quarantined_until: Timestamp.nullable().describe(
    'When the override expires; null without an expiry or for AUTO.',
  ),
  clean_runs: z.number().int().min(0).describe('Consecutive clean runs since the test last failed.'),
  clean_runs_to_release: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe('Clean runs still needed before an auto-quarantined test is released; null for an override.'),
});
export type QuarantinedTest = z.infer<typeof QuarantinedTest>;
export const ListQuarantinedTestsResponse = z.object({
  quarantined_tests: z.array(QuarantinedTest),
  page: Page,
});
