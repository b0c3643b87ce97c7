/**
 * What the parser refuses, and how it says so: one sentence naming the file and the problem.
 * Entities are never expanded and external entities never read: any DOCTYPE is refused.
 */
import { JunitParseError, parseJunit, parseJunitText } from '../../../../flaky/junit';

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<testsuites><testsuite name="s"><testcase name="&lol9;" classname="c"/></testsuite></testsuites>`;

const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE testsuites [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<testsuites><testsuite name="s"><testcase name="t" classname="c"><failure>&xxe;</failure></testcase></testsuite></testsuites>`;

async function refusal(xml: string | string[], limits = {}): Promise<JunitParseError> {
  const chunks = typeof xml === 'string' ? [xml] : xml;
  try {
    await parseJunit(chunks, { fileName: 'report.xml', limits });
  } catch (error) {
    if (error instanceof JunitParseError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const DOCTYPE_MESSAGE =
  'JUnit file "report.xml" contains a DOCTYPE declaration, which is refused because it can define entities (entity expansion or external entities).';

describe('refusals', () => {
  test.each([
    ['billion laughs', BILLION_LAUGHS],
    ['an external SYSTEM entity', EXTERNAL_ENTITY],
    ['a bare DOCTYPE', '<!DOCTYPE testsuites><testsuites/>'],
    ['a lower-case doctype', '<!doctype testsuites><testsuites/>'],
    ['an unterminated DOCTYPE', '<?xml version="1.0"?><!DOCTYPE a [ <!ENTITY'],
  ])('%s is refused as a DOCTYPE', async (_name, xml) => {
    const error = await refusal(xml);
    expect(error.kind).toBe('doctype');
    expect(error.message).toBe(DOCTYPE_MESSAGE);
  });

  test('a DOCTYPE split across chunks is still seen in the prolog', async () => {
    expect(
      (await refusal(['<?xml version="1.0"?><!DOC', 'TYPE x [<!ENTITY a "b">]><testsuites/>'])).kind,
    ).toBe('doctype');
  });

  test('"<!DOCTYPE" inside test output (CDATA) is just text', async () => {
    const xml =
      '<testsuites><testsuite name="s"><testcase name="t" classname="c"><system-out><![CDATA[<!DOCTYPE html><p>hi</p>]]></system-out></testcase></testsuite></testsuites>';
    const file = await parseJunitText(xml, { fileName: 'report.xml' });
    expect(file.testCases[0]!.attempts[0]!.systemOut?.text).toBe('<!DOCTYPE html><p>hi</p>');
  });

  test('an undeclared entity is malformed XML, never resolved', async () => {
    const error = await refusal(
      '<testsuites><testsuite name="s"><testcase name="&xxe;"/></testsuite></testsuites>',
    );
    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(
      'JUnit file "report.xml" is not well-formed XML at line 1, column 53: undefined entity.',
    );
  });

  test.each([
    ['a mismatched closing tag', '<testsuites><testsuite></testcase></testsuites>'],
    ['a truncated document', '<testsuites><testsuite name="s"><testcase name="t">'],
    ['text that is not XML', 'FAIL: everything\n'],
    ['an empty body', ''],
  ])('%s is malformed', async (_name, xml) => {
    const error = await refusal(xml);
    expect(error.kind).toBe('malformed');
    expect(error.message).toMatch(
      /^JUnit file "report\.xml" is not well-formed XML( at line \d+, column \d+)?: [^.]+\.$/,
    );
  });

  test.each([
    ['html', '<html><body>502 Bad Gateway</body></html>'],
    ['testrun', '<?xml version="1.0"?><testrun name="x"/>'],
  ])('a <%s> root is not JUnit', async (root, xml) => {
    const error = await refusal(xml);
    expect(error.kind).toBe('not_junit');
    expect(error.message).toBe(
      `JUnit file "report.xml" has the root element <${root}>, but JUnit XML starts with <testsuites> or <testsuite>.`,
    );
  });

  test('more test cases than the limit', async () => {
    const cases = Array.from({ length: 4 }, (_, i) => `<testcase name="t${i}" classname="c"/>`).join('');
    const error = await refusal(`<testsuite name="s">${cases}</testsuite>`, { maxTestCases: 3 });
    expect(error.message).toBe('JUnit file "report.xml" has more than 3 test cases, the limit for one file.');
  });

  test('more attempts of one test than the limit', async () => {
    const cases = Array.from(
      { length: 3 },
      () => '<testcase name="t" classname="c"><failure/></testcase>',
    ).join('');
    const error = await refusal(`<testsuite name="s">${cases}</testsuite>`, { maxAttemptsPerTest: 2 });
    expect(error.message).toBe(
      'JUnit file "report.xml" has more than 2 attempts of the test "t", the limit for one test.',
    );
  });

  test('nesting deeper than the limit', async () => {
    const error = await refusal(`${'<testsuite>'.repeat(5)}${'</testsuite>'.repeat(5)}`, { maxDepth: 4 });
    expect(error.message).toBe(
      'JUnit file "report.xml" nests elements deeper than 4 levels, the limit for one file.',
    );
  });

  test('a file over the byte limit is refused while streaming', async () => {
    const error = await refusal(['<testsuites>', ' '.repeat(100), '</testsuites>'], { maxFileBytes: 64 });
    expect(error.message).toBe('JUnit file "report.xml" is larger than the limit of 64 bytes.');
  });

  test('an unsupported declared encoding', async () => {
    const bytes = Buffer.from('<?xml version="1.0" encoding="x-no-such-charset"?><testsuites/>', 'latin1');
    const error = await refusal([bytes] as unknown as string[]);
    expect(error.message).toBe(
      'JUnit file "report.xml" declares the encoding "x-no-such-charset", which is not supported (use UTF-8).',
    );
  });

  test('errors are typed, with the file name and problem attached', async () => {
    const error = await refusal('<html/>');
    expect(error).toBeInstanceOf(JunitParseError);
    expect(error).toMatchObject({
      name: 'JunitParseError',
      fileName: 'report.xml',
      problem: { kind: 'not_junit', root: 'html' },
    });
  });
});
