/**
 * Domain records → the spec's wire shapes (api-spec.md §2.6, §2.7; trunk-compat §2). The TestCase
 * object and the links are built in activities/flaky/test-case-wire.ts (the test_case.* webhooks send
 * the same object); here they are checked against the response schemas' types.
 */
import type { KeysetPage, TestCaseRecord } from '../../../activities/flaky/store';
import {
  type Links,
  testCase as testCaseWire,
  unhealthyTestCase as unhealthyWire,
} from '../../../activities/flaky/test-case-wire';
import type { Page, QuarantinedTest, TestCase, UnhealthyTestCase } from '../../schemas/flaky-tests';

export { createLinks, type Links } from '../../../activities/flaky/test-case-wire';

export function unhealthyTestCase(record: TestCaseRecord, links: Links): UnhealthyTestCase {
  return unhealthyWire(record, links);
}

export function testCase(record: TestCaseRecord, links: Links): TestCase {
  return testCaseWire(record, links);
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
