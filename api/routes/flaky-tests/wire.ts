/**
 * Domain records → the spec's wire shapes (api-spec.md §2.6, §2.7; trunk-compat §2). Links point at
 * this service's own API: a test's html_url is `GET /v1/flaky-tests/tests/{id}`, a repository's is
 * `GET /v1/flaky-tests/repository?host=&owner=&name=`, a ticket's is the repository's
 * ticket_url_template or else `GET /v1/flaky-tests/tickets/{key}`.
 */
import type { KeysetPage, TestCaseRecord } from '../../../activities/flaky/store';
import type { RepositoryKey } from '../../../activities/flaky/identity';
import type { Page, QuarantinedTest, TestCase, UnhealthyTestCase } from '../../schemas/flaky-tests';

export interface Links {
  test(id: string): string;
  repository(key: RepositoryKey): string;
  ticket(key: string): string;
}

export function createLinks(publicUrl: string): Links {
  const base = `${publicUrl.replace(/\/+$/, '')}/v1/flaky-tests`;
  return {
    test: (id) => `${base}/tests/${id}`,
    repository: (key) =>
      `${base}/repository?${new URLSearchParams({ host: key.host, owner: key.owner, name: key.name }).toString()}`,
    ticket: (key) => `${base}/tickets/${encodeURIComponent(key)}`,
  };
}

export function unhealthyTestCase(record: TestCaseRecord, links: Links): UnhealthyTestCase {
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

export function testCase(record: TestCaseRecord, links: Links): TestCase {
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

/** Trunk's list-quarantined item; only called for quarantined records. */
export function quarantinedTest(record: TestCaseRecord): QuarantinedTest {
  if (!record.quarantine.quarantined || record.quarantinedAt === null)
    throw new Error(`test ${record.id} is not quarantined`);
  return {
    name: record.name,
    parent: record.parent === '' ? null : record.parent,
    file: record.file,
    classname: record.classname === '' ? null : record.classname,
    status: upper(record.status.value),
    codeowners: [...record.codeowners],
    quarantine_setting: record.quarantine.setting,
    quarantined_at: record.quarantinedAt.toISOString(),
    status_last_updated_at: record.status.timestamp.toISOString(),
    test_case_id: record.id,
    variant: record.variant,
  };
}

/** The spec's page object; `token(after)` encodes a cursor for this query. */
export function pageOf<K>(
  page: KeysetPage<K, unknown>,
  size: number,
  token: (after: K | null) => string,
): Page {
  const totalPages = Math.ceil(page.total / size);
  return {
    total_rows: page.total,
    total_pages: totalPages,
    next_page_token: page.next === undefined ? '' : token(page.next),
    prev_page_token: page.prev === undefined ? '' : token(page.prev),
    last_page_token: page.last === undefined ? '' : token(page.last),
    page_index: Math.floor(page.offset / size),
  };
}

function upper(status: TestCaseRecord['status']['value']): QuarantinedTest['status'] {
  switch (status) {
    case 'healthy':
      return 'HEALTHY';
    case 'flaky':
      return 'FLAKY';
    case 'broken':
      return 'BROKEN';
  }
}
