/**
 * Bad input to the flaky-test endpoints (/v1/flaky-tests/*): time ranges, page sizes, forged page
 * tokens, malformed UUIDs, JUnit files that are not well-formed or not JUnit, XML that declares entities
 * (entity expansion, external entities: refused before anything is resolved), wrong types, missing and
 * unknown fields, and control characters on their way to storage.
 *
 * CODEOWNERS rules and test file paths that made the old matcher backtrack for minutes (issue 11) are
 * answered within a bound: matched in linear time, or refused past the limits with a 400.
 *
 * Unknown fields are accepted and ignored as in the merge-queue area (Trunk's clients send fields
 * railyard does not know), except inside `classification`, whose parameter names are railyard's own: a
 * misspelt one would otherwise be dropped without a word.
 *
 * The entity rows point at a sentinel (support/sentinel.ts): a file with a random marker, a named pipe
 * that notices being opened and a TCP listener. Each asserts that the answer holds no marker and that
 * no target was touched.
 */
import { createHmac } from 'node:crypto';
import { QUEUE, type BadInputAnswer, type BadInputContext, type BadInputRow } from './rows';

const FLAKY = { repo: QUEUE.repo, org_url_slug: 'acme' };
const LIST = '/v1/flaky-tests/list-failing-tests';
const DETAILS = '/v1/flaky-tests/get-test-details';
const UNHEALTHY = '/v1/flaky-tests/list-unhealthy-tests';
const QUARANTINED = '/v1/flaky-tests/list-quarantined-tests';
const OVERRIDE = '/v1/flaky-tests/set-quarantine-override';
const LINK = '/v1/flaky-tests/link-ticket-to-test-case';
const CHECK = '/v1/flaky-tests/check-quarantine';
const SETTINGS = '/v1/flaky-tests/update-repository-settings';
const UPLOAD = '/v1/flaky-tests/upload';

const DAY = 86_400_000;
const T0 = '2026-03-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const listing = (extra: object = {}) => ({
  ...FLAKY,
  start_time: T0,
  end_time: at(DAY),
  page_query: { page_size: 10 },
  ...extra,
});
const pageOf = (size: number) => ({ page_query: { page_size: size } });
const unhealthy = (extra: object = {}) => ({ ...FLAKY, status: 'FLAKY', ...pageOf(10), ...extra });
const quarantined = (extra: object = {}) => ({ ...FLAKY, ...pageOf(10), ...extra });

const UNKNOWN_ID = '0d7b2f8e-3c4a-5b6c-8d9e-0f1a2b3c4d5e';
const MUST_BE_UUID = "Field 'test_id' must be a UUID.";
const BAD_TOKEN = "Field 'page_query.page_token' is not a valid page token.";
const TOO_LONG = "Field 'end_time' must be at most 7 days after 'start_time'.";
const DATE_TIME = "Field 'start_time' must be a date-time such as 2026-01-31T00:00:00Z.";
const NO_REPO = 'Repository github.com/acme/nope was not found.';

/** A list-failing-tests request over the context's range, carrying `token`. */
const withToken = (ctx: BadInputContext, token: string, extra: object = {}) => ({
  ...FLAKY,
  ...ctx.flaky.range,
  page_query: { page_size: 1, page_token: token },
  ...extra,
});

/** The context's token with its payload or signature changed. */
function tamper(token: string, part: 'payload' | 'signature'): string {
  const [payload, signature] = token.split('.') as [string, string];
  if (part === 'signature') return `${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { k: unknown };
  decoded.k = [1_000_000, '1'];
  return `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
}

/** A token of the context's payload signed with a key an attacker might guess. */
function signedWith(token: string, key: string): string {
  const [payload] = token.split('.') as [string];
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

// -- uploads -------------------------------------------------------------------------------------

const uploadMeta = (uploadId: string) => ({
  ...FLAKY,
  upload_id: uploadId,
  commit_sha: 'c0ffee1',
  branch: 'main',
});

/** A JSON upload of one file. */
const jsonUpload = (uploadId: string, content: string, extra: object = {}) => ({
  ...uploadMeta(uploadId),
  files: [{ name: 'junit.xml', content }],
  ...extra,
});

const BOUNDARY = 'railyard-bad-input-boundary';
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** A multipart upload: metadata as form fields (repo.host style), then file parts. */
function multipart(
  fields: Record<string, string>,
  files: { name: string; content: string | Buffer }[],
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  for (const file of files)
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/xml\r\n\r\n`,
      ),
      Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

const formFields = (uploadId: string) => ({
  org_url_slug: 'acme',
  'repo.host': QUEUE.repo.host,
  'repo.owner': QUEUE.repo.owner,
  'repo.name': QUEUE.repo.name,
  upload_id: uploadId,
  commit_sha: 'c0ffee1',
  branch: 'main',
});
const multipartUpload = (uploadId: string, content: string | Buffer, name = 'junit.xml') =>
  multipart(formFields(uploadId), [{ name, content }]);

const SUITE =
  '<testsuites><testsuite name="s" tests="1"><testcase classname="c" name="t" time="0.1"/></testsuite></testsuites>';
const DOCTYPE = (file: string) =>
  `JUnit file "${file}" contains a DOCTYPE declaration, which is refused because it can define entities (entity expansion or external entities).`;

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuites><testsuite name="&lol9;"><testcase classname="c" name="&lol9;"/></testsuite></testsuites>`;

const QUADRATIC = `<?xml version="1.0"?>
<!DOCTYPE q [<!ENTITY a "${'a'.repeat(50_000)}">]>
<testsuites><testsuite name="s"><testcase classname="c" name="${'&a;'.repeat(10_000)}"/></testsuite></testsuites>`;

/** A document whose test name is an external entity: the classic XXE read. */
const xxe = (url: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE testsuites [<!ENTITY xxe SYSTEM "${url}">]>
<testsuites><testsuite name="s"><testcase classname="c" name="&xxe;"><failure message="&xxe;">&xxe;</failure></testcase></testsuite></testsuites>`;

/** Out-of-band XXE: a parameter entity that fetches a DTD from the attacker. */
const parameterXxe = (url: string) => `<?xml version="1.0"?>
<!DOCTYPE testsuites [<!ENTITY % remote SYSTEM "${url}"> %remote;]>
${SUITE}`;

/** No entities, only an external DTD subset. */
const externalDtd = (url: string) => `<?xml version="1.0"?>
<!DOCTYPE testsuites SYSTEM "${url}">
${SUITE}`;

/** A DOCTYPE in lower case, after a comment and a processing instruction. */
const disguisedDoctype = (url: string) => `<?xml version="1.0"?>
<!-- generated by a test runner -->
<?runner version="1"?>
<!doctype testsuites [<!ENTITY xxe SYSTEM "${url}">]>
<testsuites><testsuite name="s"><testcase classname="c" name="&xxe;"/></testsuite></testsuites>`;

/** References that only an XInclude, XSLT or schema-aware processor would follow: data to JUnit. */
const references = (ctx: BadInputContext) => `<?xml version="1.0"?>
<?xml-stylesheet type="text/xsl" href="${ctx.sentinel.httpUrl}"?>
<testsuites xmlns:xi="http://www.w3.org/2001/XInclude" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="${ctx.sentinel.httpUrl}">
<xi:include href="${ctx.sentinel.fileUrl}" parse="text"/>
<xi:include href="${ctx.sentinel.pipeUrl}" parse="text"/>
<testsuite name="s"><testcase classname="c" name="references-are-data" time="0.1"/></testsuite></testsuites>`;

/** UTF-16LE with a byte-order mark: the DOCTYPE is found after decoding, not by byte patterns. */
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

/** Nothing was resolved: no marker in the answer, no file, pipe or connection touched. */
function nothingResolved(answer: BadInputAnswer, ctx: BadInputContext): void {
  expect(answer.body).not.toContain(ctx.sentinel.marker);
  expect(ctx.sentinel.touches()).toEqual([]);
}

// prettier-ignore
export const timeRanges: BadInputRow[] = [
  { name: 'range of 7 days and 1 ms', route: LIST, body: listing({ end_time: at(7 * DAY + 1) }), status: 400, message: TOO_LONG },
  { name: 'range of 8 days', route: LIST, body: listing({ end_time: at(8 * DAY) }), status: 400, message: TOO_LONG },
  { name: 'range of a year', route: LIST, body: listing({ end_time: at(365 * DAY) }), status: 400, message: TOO_LONG },
  { name: 'range of 7 days on the clock, 8 days 2 hours once the offsets apply', route: LIST, body: listing({ start_time: '2026-03-01T00:00:00+14:00', end_time: '2026-03-08T00:00:00-12:00' }), status: 400, message: TOO_LONG },
  { name: 'range of exactly 7 days is accepted', route: LIST, body: listing({ end_time: at(7 * DAY) }), status: 200, message: null },
  { name: 'end_time before start_time', route: LIST, body: listing({ end_time: at(-1) }), status: 400, message: "Field 'end_time' must be after 'start_time'." },
  { name: 'end_time equal to start_time', route: LIST, body: listing({ end_time: T0 }), status: 400, message: "Field 'end_time' must be after 'start_time'." },
  { name: 'start_time without a UTC offset', route: LIST, body: listing({ start_time: '2026-03-01T00:00:00' }), status: 400, message: DATE_TIME },
  { name: 'start_time a date without a time', route: LIST, body: listing({ start_time: '2026-03-01' }), status: 400, message: DATE_TIME },
  { name: 'start_time epoch milliseconds', route: LIST, body: listing({ start_time: Date.parse(T0) }), status: 400, message: DATE_TIME },
];

// prettier-ignore
export const pageSizes: BadInputRow[] = [
  { name: 'list-failing-tests page_size 0', route: LIST, body: listing(pageOf(0)), status: 400, message: "Field 'page_query.page_size' must be at least 1." },
  { name: 'list-failing-tests page_size 101', route: LIST, body: listing(pageOf(101)), status: 400, message: "Field 'page_query.page_size' must be at most 100." },
  { name: 'list-unhealthy-tests page_size 0', route: UNHEALTHY, body: unhealthy(pageOf(0)), status: 400, message: "Field 'page_query.page_size' must be at least 1." },
  { name: 'list-unhealthy-tests page_size 101', route: UNHEALTHY, body: unhealthy(pageOf(101)), status: 400, message: "Field 'page_query.page_size' must be at most 100." },
  { name: 'list-quarantined-tests page_size 0', route: QUARANTINED, body: quarantined(pageOf(0)), status: 400, message: "Field 'page_query.page_size' must be at least 1." },
  { name: 'list-quarantined-tests page_size 101', route: QUARANTINED, body: quarantined(pageOf(101)), status: 400, message: "Field 'page_query.page_size' must be at most 100." },
  { name: 'page_size negative', route: LIST, body: listing(pageOf(-1)), status: 400, message: "Field 'page_query.page_size' must be at least 1." },
  { name: 'page_size a fraction', route: LIST, body: listing(pageOf(2.5)), status: 400, message: "Field 'page_query.page_size' must be an integer." },
  { name: 'page_size beyond double range (1e400)', route: LIST, body: JSON.stringify(listing()).replace('"page_size":10', '"page_size":1e400'), status: 400, message: "Field 'page_query.page_size' must be a number." },
  { name: 'deliveries limit 0', method: 'GET', route: '', routeOf: (ctx) => `/v1/webhooks/subscriptions/${ctx.webhooks.subscriptionId}/deliveries?limit=0`, status: 400, message: "Field 'limit' must be at least 1." },
  { name: 'deliveries limit 101', method: 'GET', route: '', routeOf: (ctx) => `/v1/webhooks/subscriptions/${ctx.webhooks.subscriptionId}/deliveries?limit=101`, status: 400, message: "Field 'limit' must be at most 100." },
];

// prettier-ignore
export const pageTokens: BadInputRow[] = [
  { name: 'token with a tampered signature', route: LIST, bodyOf: (ctx) => withToken(ctx, tamper(ctx.flaky.pageToken, 'signature')), status: 400, message: BAD_TOKEN },
  { name: 'token with a tampered payload under the original signature', route: LIST, bodyOf: (ctx) => withToken(ctx, tamper(ctx.flaky.pageToken, 'payload')), status: 400, message: BAD_TOKEN },
  { name: 'token re-signed with a guessable key', route: LIST, bodyOf: (ctx) => withToken(ctx, signedWith(ctx.flaky.pageToken, 'secret')), status: 400, message: BAD_TOKEN },
  { name: 'token of another page size', route: LIST, bodyOf: (ctx) => withToken(ctx, ctx.flaky.pageToken, { page_query: { page_size: 2, page_token: ctx.flaky.pageToken } }), status: 400, message: BAD_TOKEN },
  { name: 'token of another time range (end 1 ms later)', route: LIST, bodyOf: (ctx) => withToken(ctx, ctx.flaky.pageToken, { end_time: new Date(Date.parse(ctx.flaky.range.end_time) + 1).toISOString() }), status: 400, message: BAD_TOKEN },
  { name: 'token of list-failing-tests sent to list-unhealthy-tests', route: UNHEALTHY, bodyOf: (ctx) => unhealthy({ page_query: { page_size: 1, page_token: ctx.flaky.pageToken } }), status: 400, message: BAD_TOKEN },
  { name: 'token issued to another organisation (for its own repository)', route: LIST, bodyOf: (ctx) => withToken(ctx, ctx.flaky.otherOrgPageToken), status: 400, message: BAD_TOKEN },
  { name: 'garbage that is not base64', route: LIST, bodyOf: (ctx) => withToken(ctx, '!!!not*base64!!!'), status: 400, message: BAD_TOKEN },
  { name: 'base64 JSON without a signature', route: LIST, bodyOf: (ctx) => withToken(ctx, Buffer.from('{"v":1,"q":"x","k":null}').toString('base64url')), status: 400, message: BAD_TOKEN },
  { name: 'base64 on both sides of the dot, signature of nothing', route: LIST, bodyOf: (ctx) => withToken(ctx, 'bm90LWEtdG9rZW4.bm90LWEtc2lnbmF0dXJl'), status: 400, message: BAD_TOKEN },
  { name: 'three dot-separated parts', route: LIST, bodyOf: (ctx) => withToken(ctx, `${ctx.flaky.pageToken}.AAAA`), status: 400, message: BAD_TOKEN },
  { name: 'token with a NUL byte', route: LIST, bodyOf: (ctx) => withToken(ctx, `${ctx.flaky.pageToken}\u0000`), status: 400, message: BAD_TOKEN },
  { name: 'token longer than 4096 characters', route: LIST, bodyOf: (ctx) => withToken(ctx, 'a'.repeat(4097)), status: 400, message: "Field 'page_query.page_token' must be at most 4096 characters long." },
  { name: 'forged deliveries cursor (well-formed, not of this subscription)', method: 'GET', route: '', routeOf: (ctx) => `/v1/webhooks/subscriptions/${ctx.webhooks.subscriptionId}/deliveries?cursor=msg_${'0'.repeat(32)}`, status: 400, message: "Field 'cursor' must be a cursor from an earlier page of this subscription." },
  { name: 'garbage deliveries cursor', method: 'GET', route: '', routeOf: (ctx) => `/v1/webhooks/subscriptions/${ctx.webhooks.subscriptionId}/deliveries?cursor=bm90LWEtY3Vyc29y`, status: 400, message: "Field 'cursor' must be a cursor from an earlier page." },
];

// prettier-ignore
export const uuids: BadInputRow[] = [
  { name: 'test_id not a UUID', route: DETAILS, body: { ...FLAKY, test_id: 'nope' }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id in braces', route: DETAILS, body: { ...FLAKY, test_id: `{${UNKNOWN_ID}}` }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id without dashes', route: DETAILS, body: { ...FLAKY, test_id: UNKNOWN_ID.replace(/-/g, '') }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id one character too long', route: DETAILS, body: { ...FLAKY, test_id: `${UNKNOWN_ID}a` }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id with a non-hex digit', route: DETAILS, body: { ...FLAKY, test_id: UNKNOWN_ID.replace('0', 'g') }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id with SQL in it', route: DETAILS, body: { ...FLAKY, test_id: "' OR '1'='1" }, status: 400, message: MUST_BE_UUID },
  { name: 'test_id a number', route: DETAILS, body: { ...FLAKY, test_id: 5 }, status: 400, message: MUST_BE_UUID },
  { name: 'test page path not a UUID', method: 'GET', route: '/v1/flaky-tests/tests/not-a-uuid', status: 400, message: MUST_BE_UUID },
  { name: 'set-quarantine-override test_id not a UUID', route: OVERRIDE, body: { ...FLAKY, test_id: 'x', override: 'ALWAYS_QUARANTINE' }, status: 400, message: MUST_BE_UUID },
  { name: 'link-ticket test_case_id not a UUID', route: LINK, body: { repo: QUEUE.repo, test_case_id: 'x', external_ticket_id: 'KAN-1' }, status: 400, message: "Field 'test_case_id' must be a UUID." },
  { name: 'check-quarantine failed_tests[0].test_id not a UUID', route: CHECK, body: { ...FLAKY, failed_tests: [{ test_id: 'x' }] }, status: 400, message: "Field 'failed_tests[0].test_id' must be a UUID." },
  { name: 'a well-formed UUID of no test', route: DETAILS, body: { ...FLAKY, test_id: UNKNOWN_ID }, status: 404, message: `Test case ${UNKNOWN_ID} was not found in github.com/acme/app.` },
  { name: 'the nil UUID', method: 'GET', route: '/v1/flaky-tests/tests/00000000-0000-0000-0000-000000000000', status: 404, message: 'Test case 00000000-0000-0000-0000-000000000000 was not found.' },
  { name: 'a known test id in upper case finds the test', route: DETAILS, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId.toUpperCase() }), status: 200, message: null },
  { name: 'subscription id not a UUID (GET)', method: 'GET', route: '/v1/webhooks/subscriptions/not-a-uuid', status: 400, message: "Field 'id' must be a valid uuid." },
  { name: 'subscription id not a UUID (PATCH)', method: 'PATCH', route: '/v1/webhooks/subscriptions/not-a-uuid', body: { enabled: false }, status: 400, message: "Field 'id' must be a valid uuid." },
  { name: 'subscription id not a UUID (DELETE)', method: 'DELETE', route: `/v1/webhooks/subscriptions/${UNKNOWN_ID}x`, status: 400, message: "Field 'id' must be a valid uuid." },
  { name: 'subscription id not a UUID (deliveries)', method: 'GET', route: "/v1/webhooks/subscriptions/'%20OR%201=1/deliveries", status: 400, message: "Field 'id' must be a valid uuid." },
  { name: 'delivery id a UUID instead of msg_…', method: 'GET', route: `/v1/webhooks/deliveries/${UNKNOWN_ID}`, status: 400, message: "Field 'id' must be a delivery id (msg_…)." },
  { name: 'a well-formed subscription id of no subscription', method: 'GET', route: `/v1/webhooks/subscriptions/${UNKNOWN_ID}`, status: 404, message: `Webhook subscription ${UNKNOWN_ID} was not found.` },
  { name: 'a well-formed delivery id of no delivery', method: 'GET', route: `/v1/webhooks/deliveries/msg_${'0'.repeat(32)}`, status: 404, message: `Webhook delivery msg_${'0'.repeat(32)} was not found.` },
];

const NOT_JUNIT = (file: string, root: string) =>
  `JUnit file "${file}" has the root element <${root}>, but JUnit XML starts with <testsuites> or <testsuite>.`;

// prettier-ignore
export const junitFiles: BadInputRow[] = [
  { name: 'not XML at all', route: UPLOAD, body: jsonUpload('bad-1', 'this is not xml'), status: 400, message: 'JUnit file "junit.xml" is not well-formed XML at line 1, column 15: text data outside of root node.' },
  { name: 'truncated document', route: UPLOAD, body: jsonUpload('bad-2', '<testsuites><testsuite name="s"><testcase name="t"'), status: 400, message: 'JUnit file "junit.xml" is not well-formed XML at line 1, column 50: unclosed tag: testsuite.' },
  { name: 'mismatched closing tag', route: UPLOAD, body: jsonUpload('bad-3', '<testsuites><testsuite name="s"></testsuites></testsuite>'), status: 400, message: 'JUnit file "junit.xml" is not well-formed XML at line 1, column 45: unexpected close tag.' },
  { name: 'an entity no DTD defines', route: UPLOAD, body: jsonUpload('bad-4', '<testsuites><testsuite name="&nbsp;"/></testsuites>'), status: 400, message: 'JUnit file "junit.xml" is not well-formed XML at line 1, column 35: undefined entity.' },
  { name: 'a NUL character in the XML', route: UPLOAD, body: jsonUpload('bad-5', '<testsuites><testsuite name="a\u0000b"/></testsuites>'), status: 400, message: 'JUnit file "junit.xml" is not well-formed XML at line 1, column 31: disallowed character.' },
  { name: 'XML that is not JUnit (<html>)', route: UPLOAD, body: jsonUpload('bad-6', '<html><body/></html>'), status: 400, message: NOT_JUNIT('junit.xml', 'html') },
  { name: 'elements nested 40 levels deep', route: UPLOAD, body: jsonUpload('bad-7', `<testsuites>${'<testsuite>'.repeat(39)}${'</testsuite>'.repeat(39)}</testsuites>`), status: 400, message: 'JUnit file "junit.xml" nests elements deeper than 32 levels, the limit for one file.' },
  { name: 'an empty file', route: UPLOAD, body: jsonUpload('bad-8', ''), status: 400, message: "Field 'files[0].content' must be at least 1 characters long." },
  { name: 'no files', route: UPLOAD, body: { ...uploadMeta('bad-9'), files: [] }, status: 400, message: "Field 'files' must have at least 1 items." },
  { name: '101 files', route: UPLOAD, body: { ...uploadMeta('bad-10'), files: Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.xml`, content: SUITE })) }, status: 400, message: "Field 'files' must have at most 100 items." },
  { name: 'multipart: not XML', route: UPLOAD, headers: MULTIPART, body: multipartUpload('bad-11', 'this is not xml', 'report.xml'), status: 400, message: 'JUnit file "report.xml" is not well-formed XML at line 1, column 15: text data outside of root node.' },
  { name: 'multipart: an encoding that is not supported', route: UPLOAD, headers: MULTIPART, body: multipartUpload('bad-12', `<?xml version="1.0" encoding="EBCDIC-XYZ"?>${SUITE}`), status: 400, message: 'JUnit file "junit.xml" declares the encoding "EBCDIC-XYZ", which is not supported (use UTF-8).' },
  { name: 'multipart: no file part', route: UPLOAD, headers: MULTIPART, body: multipart(formFields('bad-13'), []), status: 400, message: 'The upload has no JUnit file; send at least one file part.' },
  { name: 'multipart: no boundary', route: UPLOAD, headers: { 'content-type': 'multipart/form-data' }, body: multipartUpload('bad-14', SUITE), status: 400, message: 'The content type multipart/form-data needs a boundary parameter.' },
  { name: 'multipart: body cut off in a file part', route: UPLOAD, headers: MULTIPART, body: multipartUpload('bad-15', SUITE).subarray(0, 700), status: 400, message: 'The multipart body is malformed: Unexpected end of multipart data.' },
  { name: 'multipart: a body that is not multipart', route: UPLOAD, headers: MULTIPART, body: '<testsuites/>', status: 400, message: 'The multipart body is malformed: Unexpected end of multipart data.' },
  { name: 'multipart: an empty boundary', route: UPLOAD, headers: { 'content-type': 'multipart/form-data; boundary=' }, body: multipartUpload('bad-16', SUITE), status: 400, message: 'The content type multipart/form-data needs a boundary parameter.' },
];

// prettier-ignore
export const xmlEntities: BadInputRow[] = [
  { name: 'billion laughs (JSON upload)', route: UPLOAD, body: jsonUpload('xml-1', BILLION_LAUGHS), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'billion laughs (multipart upload)', route: UPLOAD, headers: MULTIPART, body: multipartUpload('xml-2', BILLION_LAUGHS), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'billion laughs in UTF-16 with a byte-order mark', route: UPLOAD, headers: MULTIPART, body: multipartUpload('xml-3', utf16(BILLION_LAUGHS)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'quadratic blowup (one 50 kB entity used 10,000 times)', route: UPLOAD, body: jsonUpload('xml-4', QUADRATIC), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external entity: a local file (JSON upload)', route: UPLOAD, bodyOf: (ctx) => jsonUpload('xml-5', xxe(ctx.sentinel.fileUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external entity: a local file (multipart upload)', route: UPLOAD, headers: MULTIPART, bodyOf: (ctx) => multipartUpload('xml-6', xxe(ctx.sentinel.fileUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external entity: a named pipe (an open would be noticed)', route: UPLOAD, headers: MULTIPART, bodyOf: (ctx) => multipartUpload('xml-7', xxe(ctx.sentinel.pipeUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external entity: an http URL', route: UPLOAD, bodyOf: (ctx) => jsonUpload('xml-8', xxe(ctx.sentinel.httpUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external parameter entity (out-of-band XXE)', route: UPLOAD, headers: MULTIPART, bodyOf: (ctx) => multipartUpload('xml-9', parameterXxe(ctx.sentinel.httpUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external DTD subset only', route: UPLOAD, bodyOf: (ctx) => jsonUpload('xml-10', externalDtd(ctx.sentinel.httpUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'lower-case doctype after a comment and a processing instruction', route: UPLOAD, bodyOf: (ctx) => jsonUpload('xml-11', disguisedDoctype(ctx.sentinel.fileUrl)), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'external entity in UTF-16 with a byte-order mark', route: UPLOAD, headers: MULTIPART, bodyOf: (ctx) => multipartUpload('xml-12', utf16(xxe(ctx.sentinel.fileUrl))), status: 400, message: DOCTYPE('junit.xml'), check: nothingResolved },
  { name: 'XInclude, xml-stylesheet and schemaLocation are data, never followed', route: UPLOAD, bodyOf: (ctx) => jsonUpload('xml-13', references(ctx)), status: 200, message: null, check: nothingResolved },
];

// prettier-ignore
export const wrongTypes: BadInputRow[] = [
  { name: 'repo is a string', route: LIST, body: listing({ repo: 'acme/app' }), status: 400, message: "Field 'repo' must be an object." },
  { name: 'org_url_slug is a number', route: DETAILS, body: { ...FLAKY, org_url_slug: 5, test_id: UNKNOWN_ID }, status: 400, message: "Field 'org_url_slug' must be a string." },
  { name: 'page_query.page_size is a string', route: LIST, body: listing({ page_query: { page_size: '10' } }), status: 400, message: "Field 'page_query.page_size' must be a number." },
  { name: 'page_query is an array', route: QUARANTINED, body: quarantined({ page_query: [] }), status: 400, message: "Field 'page_query' must be an object." },
  { name: 'page_query.page_token is a number', route: LIST, body: listing({ page_query: { page_size: 1, page_token: 5 } }), status: 400, message: "Field 'page_query.page_token' must be a string." },
  { name: 'status is a number', route: UNHEALTHY, body: unhealthy({ status: 5 }), status: 400, message: "Field 'status' must be a string." },
  { name: 'status is not FLAKY or BROKEN', route: UNHEALTHY, body: unhealthy({ status: 'HEALTHY' }), status: 400, message: "Field 'status' must be one of: FLAKY, BROKEN." },
  { name: 'override is not a known setting', route: OVERRIDE, body: { ...FLAKY, test_id: UNKNOWN_ID, override: 'SOMETIMES' }, status: 400, message: "Field 'override' must be one of: UNSPECIFIED, ALWAYS_QUARANTINE, NEVER_QUARANTINE." },
  { name: 'failed_tests is an object', route: CHECK, body: { ...FLAKY, failed_tests: {} }, status: 400, message: "Field 'failed_tests' must be an array." },
  { name: 'quarantine.enabled is a string', route: SETTINGS, body: { ...FLAKY, quarantine: { enabled: 'yes' } }, status: 400, message: "Field 'quarantine.enabled' must be a boolean." },
  { name: 'classification.rateOn is a string', route: SETTINGS, body: { ...FLAKY, classification: { rateOn: '0.3' } }, status: 400, message: "Field 'classification.rateOn' must be a number." },
  { name: 'ticket_url_template without {ticket}', route: SETTINGS, body: { ...FLAKY, ticket_url_template: 'https://jira.example/browse/' }, status: 400, message: "Field 'ticket_url_template' must be an http(s) URL containing {ticket}." },
  // Found by fuzzing: a template with characters a URI cannot hold made every linked test's ticket.html_url break the document's `uri`.
  { name: 'ticket_url_template with non-ASCII characters', route: SETTINGS, body: { ...FLAKY, ticket_url_template: 'https://jira.example/ü/{ticket}' }, status: 400, message: "Field 'ticket_url_template' must be an http(s) URL containing {ticket}." },
  { name: 'ticket_url_template with other braces', route: SETTINGS, body: { ...FLAKY, ticket_url_template: 'https://jira.example/{project}/{ticket}' }, status: 400, message: "Field 'ticket_url_template' must be an http(s) URL containing {ticket}." },
  { name: 'upload attempt is a word', route: UPLOAD, body: jsonUpload('types-1', SUITE, { attempt: 'two' }), status: 400, message: "Field 'attempt' must be a whole number." },
  { name: 'upload files is a string', route: UPLOAD, body: { ...uploadMeta('types-2'), files: 'junit.xml' }, status: 400, message: "Field 'files' must be an array." },
  { name: 'upload pr_number is a boolean', route: UPLOAD, body: jsonUpload('types-3', SUITE, { pr_number: true }), status: 400, message: "Field 'pr_number' must be a number or a numeric string." },
  { name: 'upload job_url is not http(s)', route: UPLOAD, body: jsonUpload('types-4', SUITE, { job_url: 'javascript:alert(1)' }), status: 400, message: "Field 'job_url' must be an http(s) URL." },
];

// prettier-ignore
export const missingFields: BadInputRow[] = [
  { name: 'list-failing-tests without org_url_slug', route: LIST, body: listing({ org_url_slug: undefined }), status: 400, message: "Field 'org_url_slug' is required." },
  { name: 'list-failing-tests without start_time', route: LIST, body: listing({ start_time: undefined }), status: 400, message: "Field 'start_time' is required." },
  { name: 'list-failing-tests without page_query', route: LIST, body: listing({ page_query: undefined }), status: 400, message: "Field 'page_query' is required." },
  { name: 'list-failing-tests without page_query.page_size', route: LIST, body: listing({ page_query: {} }), status: 400, message: "Field 'page_query.page_size' is required." },
  { name: 'get-test-details without test_id', route: DETAILS, body: FLAKY, status: 400, message: "Field 'test_id' is required." },
  { name: 'list-unhealthy-tests without status', route: UNHEALTHY, body: unhealthy({ status: undefined }), status: 400, message: "Field 'status' is required." },
  { name: 'set-quarantine-override without override', route: OVERRIDE, body: { ...FLAKY, test_id: UNKNOWN_ID }, status: 400, message: "Field 'override' is required." },
  { name: 'link-ticket without external_ticket_id', route: LINK, body: { repo: QUEUE.repo, test_case_id: UNKNOWN_ID }, status: 400, message: "Field 'external_ticket_id' is required." },
  { name: 'check-quarantine with a failed test that has neither id nor name', route: CHECK, body: { ...FLAKY, failed_tests: [{}] }, status: 400, message: "Field 'failed_tests[0]' must have a test_id or a name." },
  { name: 'repository page without name', method: 'GET', route: '/v1/flaky-tests/repository?host=github.com&owner=acme', status: 400, message: "Field 'name' is required." },
  { name: 'upload without upload_id', route: UPLOAD, body: jsonUpload('x', SUITE, { upload_id: undefined }), status: 400, message: "Field 'upload_id' is required." },
  { name: 'upload without commit_sha', route: UPLOAD, body: jsonUpload('missing-1', SUITE, { commit_sha: undefined }), status: 400, message: "Field 'commit_sha' is required." },
  { name: 'upload without files', route: UPLOAD, body: uploadMeta('missing-2'), status: 400, message: "Field 'files' is required." },
  { name: 'multipart upload without repo fields', route: UPLOAD, headers: MULTIPART, body: multipart({ org_url_slug: 'acme', upload_id: 'missing-3', commit_sha: 'c0ffee1', branch: 'main' }, [{ name: 'junit.xml', content: SUITE }]), status: 400, message: "Field 'repo' is required." },
];

// prettier-ignore
export const unknownFields: BadInputRow[] = [
  { name: 'an unknown top-level field is ignored', route: DETAILS, body: { ...FLAKY, repo: { ...QUEUE.repo, name: 'nope' }, test_id: UNKNOWN_ID, include_history: true }, status: 404, message: NO_REPO },
  { name: 'an unknown field inside repo is ignored', route: LIST, body: listing({ repo: { ...QUEUE.repo, name: 'nope', id: 7 } }), status: 404, message: NO_REPO },
  { name: 'an unknown field inside page_query is ignored', route: QUARANTINED, body: quarantined({ repo: { ...QUEUE.repo, name: 'nope' }, page_query: { page_size: 5, offset: 10 } }), status: 404, message: NO_REPO },
  { name: 'an unknown classification parameter is refused', route: SETTINGS, body: { ...FLAKY, classification: { rateOnn: 0.2 } }, status: 400, message: "Field 'classification' has unknown field 'rateOnn'." },
];

// prettier-ignore
export const scope: BadInputRow[] = [
  { name: 'org_url_slug of an organisation that does not exist', route: LIST, body: listing({ org_url_slug: 'nope' }), status: 404, message: "Organisation 'nope' was not found." },
  { name: 'upload to another organisation’s slug', route: UPLOAD, body: { ...jsonUpload('scope-1', SUITE), org_url_slug: 'globex' }, status: 404, message: "Organisation 'globex' was not found." },
  { name: 'a repository that does not exist', route: UNHEALTHY, body: unhealthy({ repo: { ...QUEUE.repo, name: 'nope' } }), status: 404, message: NO_REPO },
];

// prettier-ignore
export const controlCharacters: BadInputRow[] = [
  { name: 'override reason with a NUL', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'UNSPECIFIED', reason: 'flaky\u0000' }), status: 400, message: "Field 'reason' must not contain NUL characters." },
  { name: 'override actor with a NUL', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'UNSPECIFIED', actor: 'me\u0000' }), status: 400, message: "Field 'actor' must not contain control characters." },
  { name: 'override expires_at is not a date-time', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'ALWAYS_QUARANTINE', expires_at: 'tomorrow' }), status: 400, message: "Field 'expires_at' must be a date-time such as 2026-01-31T00:00:00Z." },
  { name: 'override expires_at in the past', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'ALWAYS_QUARANTINE', expires_at: '2020-01-01T00:00:00Z' }), status: 400, message: "Field 'expires_at' must be in the future." },
  { name: 'override expires_at with UNSPECIFIED', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'UNSPECIFIED', expires_at: new Date(Date.now() + 86_400_000).toISOString() }), status: 400, message: "Field 'expires_at' can only be given with ALWAYS_QUARANTINE or NEVER_QUARANTINE." },
  { name: 'override owner over 255 characters', route: OVERRIDE, bodyOf: (ctx) => ({ ...FLAKY, test_id: ctx.flaky.testId, override: 'ALWAYS_QUARANTINE', owner: 'o'.repeat(256) }), status: 400, message: "Field 'owner' must be at most 255 characters long." },
  { name: 'quarantine.release_after_clean_runs is 0', route: SETTINGS, body: { ...FLAKY, quarantine: { release_after_clean_runs: 0 } }, status: 400, message: "Field 'quarantine.release_after_clean_runs' must be a whole number from 1 to 1000." },
  { name: 'quarantine.release_after_clean_runs is a string', route: SETTINGS, body: { ...FLAKY, quarantine: { release_after_clean_runs: '20' } }, status: 400, message: "Field 'quarantine.release_after_clean_runs' must be a number." },
  { name: 'ticket key with a NUL', route: LINK, bodyOf: (ctx) => ({ repo: QUEUE.repo, test_case_id: ctx.flaky.testId, external_ticket_id: 'KAN-1\u0000' }), status: 400, message: "Field 'external_ticket_id' must be a ticket key such as KAN-123." },
  { name: 'ticket page of a key with a NUL', method: 'GET', route: '/v1/flaky-tests/tickets/KAN-1%00', status: 400, message: "Field 'ticket' must be a ticket key such as KAN-123." },
  { name: 'ticket_url_template with a NUL', route: SETTINGS, body: { ...FLAKY, ticket_url_template: 'https://jira.example/{ticket}\u0000' }, status: 400, message: "Field 'ticket_url_template' must not contain control characters." },
  { name: 'settings actor with a NUL', route: SETTINGS, body: { ...FLAKY, actor: 'me\u0000' }, status: 400, message: "Field 'actor' must not contain control characters." },
  { name: 'stable branch name with a NUL', route: SETTINGS, body: { ...FLAKY, classification: { stableBranches: ['ma\u0000in'] } }, status: 400, message: "Field 'classification.stableBranches[0]' must not contain control characters." },
  { name: 'upload codeowners with a NUL', route: UPLOAD, body: jsonUpload('nul-1', SUITE, { codeowners: '* @acme/a\u0000b' }), status: 400, message: "Field 'codeowners' must not contain NUL characters." },
  { name: 'upload job_url with a NUL', route: UPLOAD, body: jsonUpload('nul-2', SUITE, { job_url: 'https://ci.example/job/1\u0000' }), status: 400, message: "Field 'job_url' must not contain control characters." },
];

// -- CODEOWNERS that cost time to match ------------------------------------------------------------

/** The rule of issue 11's reproduction: it backtracked for about 110 s against a file of 43 `a`. */
const BACKTRACKING_RULE = `${'a*'.repeat(12)}b`;
const backtrackingRules = (count: number) =>
  Array.from({ length: count }, () => `${BACKTRACKING_RULE} @acme/team`).join('\n');
/** One JUnit file with one test per file path. */
const suiteOfFiles = (files: string[]) =>
  `<testsuites><testsuite name="s">${files
    .map((file, i) => `<testcase classname="c" name="t${i}" file="${file}" time="0.1"/>`)
    .join('')}</testsuite></testsuites>`;
const COSTLY =
  "Field 'codeowners' takes more than 100000000 steps to match against this upload's test files; use fewer or simpler patterns.";
/** Old code: minutes of CPU; now: milliseconds of matching, the rest is the upload itself. */
const WITHIN_CPU_SECONDS = 10;

// prettier-ignore
export const codeownersCost: BadInputRow[] = [
  { name: 'the reproduction: one rule of twelve a* then b, a test file of 43 a', route: UPLOAD, body: jsonUpload('owners-1', suiteOfFiles(['a'.repeat(43)]), { codeowners: backtrackingRules(1) }), status: 200, message: null, withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: 'the reproduction as a multipart upload', route: UPLOAD, headers: MULTIPART, body: multipart({ ...formFields('owners-2'), codeowners: backtrackingRules(1) }, [{ name: 'junit.xml', content: suiteOfFiles(['a'.repeat(43)]) }]), status: 200, message: null, withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: '1,000 such rules, 20 test files of 43 a and more', route: UPLOAD, body: jsonUpload('owners-3', suiteOfFiles(Array.from({ length: 20 }, (_, i) => 'a'.repeat(43 + i))), { codeowners: backtrackingRules(1_000) }), status: 200, message: null, withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: '1,000 such rules, a test file path of 4 KB of a', route: UPLOAD, body: jsonUpload('owners-4', suiteOfFiles(['a'.repeat(4_096)]), { codeowners: backtrackingRules(1_000) }), status: 200, message: null, withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: '5,000 such rules and a 4 KB path: more matching than an upload may cost', route: UPLOAD, body: jsonUpload('owners-5', suiteOfFiles(['a'.repeat(4_096)]), { codeowners: backtrackingRules(5_000) }), status: 400, message: COSTLY, withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: '10,001 rules', route: UPLOAD, body: jsonUpload('owners-6', SUITE, { codeowners: Array.from({ length: 10_001 }, (_, i) => `/d${i}/ @acme/team`).join('\n') }), status: 400, message: "Field 'codeowners' has more than 10000 rules.", withinCpuSeconds: WITHIN_CPU_SECONDS },
  { name: 'a pattern of 1,001 characters', route: UPLOAD, body: jsonUpload('owners-7', SUITE, { codeowners: `* @acme/all\n${'a*'.repeat(500)}b @acme/team` }), status: 400, message: "Field 'codeowners' has a pattern of 1001 characters on line 2; at most 1000 are allowed.", withinCpuSeconds: WITHIN_CPU_SECONDS },
];

export const FLAKY_TEST_SECTIONS: [string, BadInputRow[]][] = [
  ['flaky: time ranges', timeRanges],
  ['flaky and webhooks: page sizes', pageSizes],
  ['flaky and webhooks: forged page tokens', pageTokens],
  ['flaky and webhooks: malformed UUIDs', uuids],
  ['flaky: invalid JUnit XML', junitFiles],
  ['flaky: XML entities (expansion, external) refused, never resolved', xmlEntities],
  ['flaky: wrong types', wrongTypes],
  ['flaky: missing fields', missingFields],
  ['flaky: extra unknown fields', unknownFields],
  ['flaky: organisation and repository scope', scope],
  ['flaky: NUL characters that would reach PostgreSQL', controlCharacters],
  ['flaky: CODEOWNERS that cost time to match', codeownersCost],
];
