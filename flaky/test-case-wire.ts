/**
 * The spec's TestCase object (api-spec.md §2.6, trunk-compat §2) built from a TestCaseRecord: what
 * the flaky-test API answers and what the test_case.* webhooks carry, so both are the same object.
 * Links point at this service's web dashboard, which a person opens in a browser (signing in with an
 * API key; api/dashboard/routes/flaky.ts): a test's html_url is `/ui/flaky/tests/{id}`, a repository's
 * `/ui/flaky/repository?host=&owner=&name=`, a ticket's the repository's ticket_url_template or else
 * `/ui/flaky/tickets/{key}`. The API serves the same objects at /v1/flaky-tests/tests/{id} etc.
 *
 * The HTTP layer checks these shapes against its zod response schemas (api/schemas/flaky-tests.ts).
 * The list pages are written by PostgreSQL instead (store/test-case-json.ts), byte for byte the same.
 */
import type { RepositoryKey } from '../contract';
import { cleanRunsToRelease } from './quarantine-release';
import { type TestCaseRecord } from './test-case-record';

export interface Links {
  test(id: string): string;
  repository(key: RepositoryKey): string;
  ticket(key: string): string;
}

export function createLinks(publicUrl: string): Links {
  const base = `${publicUrl.replace(/\/+$/, '')}/ui/flaky`;
  return {
    test: (id) => `${base}/tests/${id}`,
    repository: (key) =>
      `${base}/repository?${new URLSearchParams({ host: key.host, owner: key.owner, name: key.name }).toString()}`,
    ticket: (key) => `${base}/tickets/${encodeURIComponent(key)}`,
  };
}

/**
 * What the SQL twin of these builders (store/test-case-json.ts) needs: one repository's link, and
 * the prefixes test and ticket links are made of (`test(id)` is `testPrefix + id`, `ticket(key)` is
 * `ticketPrefix + encodeURIComponent(key)`, as createLinks builds them).
 */
export interface WireLinks {
  readonly repository: string;
  readonly testPrefix: string;
  readonly ticketPrefix: string;
}

export function wireLinks(links: Links, repository: RepositoryKey): WireLinks {
  return {
    repository: links.repository(repository),
    testPrefix: links.test(''),
    ticketPrefix: links.ticket(''),
  };
}

export interface UnhealthyTestCaseWire {
  id: string;
  repository: { html_url: string };
  html_url: string;
  name: string;
  variant: string;
  status: { value: 'healthy' | 'flaky' | 'broken'; reason: string; timestamp: string };
  file_path?: string;
  parent?: string;
  classname?: string;
  codeowners: string[];
  pull_requests_impacted_last_7d: number;
  quarantined: boolean;
  ticket?: { html_url: string };
}

export interface TestCaseWire extends UnhealthyTestCaseWire {
  most_common_failures: { summary: string; occurrence_count: number; last_occurrence?: string }[];
  failure_rate_last_7d: number;
  failure_rate_last_24h: number;
}

export function unhealthyTestCase(record: TestCaseRecord, links: Links): UnhealthyTestCaseWire {
  return {
    id: record.id,
    repository: { html_url: links.repository(record.repository) },
    html_url: links.test(record.id),
    name: record.name,
    variant: record.variant,
    status: {
      value: record.status.value,
      reason: record.status.reason,
      timestamp: record.status.timestamp.toISOString(),
    },
    ...(record.file === null ? {} : { file_path: record.file }),
    ...(record.parent === '' ? {} : { parent: record.parent }),
    ...(record.classname === '' ? {} : { classname: record.classname }),
    codeowners: [...record.codeowners],
    pull_requests_impacted_last_7d: record.pullRequestsImpacted7d,
    quarantined: record.quarantine.quarantined,
    ...(record.ticket === null
      ? {}
      : { ticket: { html_url: record.ticket.url ?? links.ticket(record.ticket.key) } }),
  };
}

export function testCase(record: TestCaseRecord, links: Links): TestCaseWire {
  return {
    ...unhealthyTestCase(record, links),
    most_common_failures: record.mostCommonFailures.map((failure) => ({
      summary: failure.summary,
      occurrence_count: failure.occurrences,
      last_occurrence: failure.lastOccurrence.toISOString(),
    })),
    failure_rate_last_7d: record.failureRate7d,
    failure_rate_last_24h: record.failureRate24h,
  };
}

export interface QuarantinedTestWire {
  name: string;
  parent: string | null;
  file: string | null;
  classname: string | null;
  status: 'HEALTHY' | 'FLAKY' | 'BROKEN';
  codeowners: string[];
  quarantine_setting: 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE';
  quarantined_at: string;
  status_last_updated_at: string;
  test_case_id: string;
  variant: string;
  // railyard's additive fields: why, until when, who answers for it, and the clean runs.
  quarantine_reason: string | null;
  owner: string | null;
  quarantined_until: string | null;
  clean_runs: number;
  clean_runs_to_release: number | null;
}

/**
 * Trunk's list-quarantined item; only for quarantined records. list-quarantined-tests writes it in
 * SQL (store/test-case-json.ts); this is the reference that SQL is checked against.
 */
export function quarantinedTest(record: TestCaseRecord): QuarantinedTestWire {
  if (!record.quarantine.quarantined || record.quarantinedAt === null)
    throw new Error(`test ${record.id} is not quarantined`);
  return {
    name: record.name,
    parent: record.parent === '' ? null : record.parent,
    file: record.file,
    classname: record.classname === '' ? null : record.classname,
    status:
      record.status.value === 'healthy' ? 'HEALTHY' : record.status.value === 'flaky' ? 'FLAKY' : 'BROKEN',
    codeowners: [...record.codeowners],
    quarantine_setting: record.quarantine.setting,
    quarantined_at: record.quarantinedAt.toISOString(),
    status_last_updated_at: record.status.timestamp.toISOString(),
    test_case_id: record.id,
    variant: record.variant,
    ...quarantineLifecycle(record, record.quarantine.setting),
  };
}

function quarantineLifecycle(
  record: TestCaseRecord,
  setting: 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE',
): Pick<
  QuarantinedTestWire,
  'quarantine_reason' | 'owner' | 'quarantined_until' | 'clean_runs' | 'clean_runs_to_release'
> {
  const byOverride = setting === 'ALWAYS_QUARANTINE';
  return {
    quarantine_reason: byOverride ? record.override.reason : record.status.reason,
    owner: record.override.owner,
    quarantined_until: byOverride ? (record.override.expiresAt?.toISOString() ?? null) : null,
    clean_runs: record.release.cleanRuns,
    clean_runs_to_release: byOverride
      ? null
      : cleanRunsToRelease(record.release.cleanRuns, record.release.releaseAfterCleanRuns),
  };
}
