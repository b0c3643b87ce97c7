import { parseJunit } from '../../../../flaky/junit';

const XML = '<testsuite name="s"><testcase name="Grüße ✓ 😀" classname="c"/></testsuite>';
const nameOf = async (chunks: (Buffer | string)[]) =>
  (await parseJunit(chunks, { fileName: 'r.xml' })).testCases[0]!.name;

describe('decoding byte streams', () => {
  test('UTF-8 split inside multi-byte characters', async () => {
    const bytes = Buffer.from(XML, 'utf8');
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(await nameOf(chunks)).toBe('Grüße ✓ 😀');
  });

  test('a UTF-8 byte-order mark', async () => {
    expect(await nameOf([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(XML)])])).toBe(
      'Grüße ✓ 😀',
    );
  });

  test('UTF-16 with a byte-order mark', async () => {
    expect(await nameOf([Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(XML, 'utf16le')])])).toBe(
      'Grüße ✓ 😀',
    );
  });

  test('a declared ISO-8859-1 encoding', async () => {
    const latin = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase name="Grüße" classname="c"/></testsuite>',
      'latin1',
    );
    expect(await nameOf([latin])).toBe('Grüße');
  });

  test('strings pass through, a leading BOM removed', async () => {
    expect(await nameOf([`\uFEFF${XML.slice(0, 10)}`, XML.slice(10)])).toBe('Grüße ✓ 😀');
  });
});
