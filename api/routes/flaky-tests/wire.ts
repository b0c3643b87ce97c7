/**
 * Domain records → the spec's wire shapes (api-spec.md §2.6, §2.7; trunk-compat §2). The TestCase
 * object and the links are built in flaky/test-case-wire.ts (the test_case.* webhooks send
 * the same object); here they are checked against the response schemas' types. The list pages'
 * items are written by PostgreSQL (flaky/store/test-case-json.ts); their page object is
 * built here.
 */
import type { KeysetPosition, TestCaseRecord } from '../../../flaky/service';
import {
  type Links,
  testCase as testCaseWire,
  unhealthyTestCase as unhealthyWire,
} from '../../../flaky/test-case-wire';
import type { Page, TestCase, UnhealthyTestCase } from '../../schemas/flaky-tests';

export { createLinks, type Links, wireLinks } from '../../../flaky/test-case-wire';

export function unhealthyTestCase(record: TestCaseRecord, links: Links): UnhealthyTestCase {
  return unhealthyWire(record, links);
}

export function testCase(record: TestCaseRecord, links: Links): TestCase {
  return testCaseWire(record, links);
}

/** The spec's page object; `token(after)` encodes a cursor for this query. */
export function pageOf<K>(page: KeysetPosition<K>, size: number, token: (after: K | null) => string): Page {
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
