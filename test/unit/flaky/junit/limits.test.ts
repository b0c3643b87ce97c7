import { parseJunitText } from '../../../../flaky/junit';
import { BoundedTextBuilder, shortenIdentityField } from '../../../../flaky/junit/limits';

describe('text bounds', () => {
  test('a bounded builder keeps the head and remembers the full length', () => {
    const builder = new BoundedTextBuilder(5);
    builder.append('abc');
    builder.append('defgh');
    expect(builder.build()).toEqual({ text: 'abcde', totalChars: 8 });
  });

  test('blank text is no text', () => {
    const builder = new BoundedTextBuilder(5);
    builder.append('  \n ');
    expect(builder.build()).toBeUndefined();
  });

  test('long identity fields are shortened with a hash of the whole', () => {
    const a = shortenIdentityField(`${'x'.repeat(50)}a`, 30);
    const b = shortenIdentityField(`${'x'.repeat(50)}b`, 30);
    expect(a).toHaveLength(30);
    expect(a).not.toBe(b);
    expect(shortenIdentityField(`${'x'.repeat(50)}a`, 30)).toBe(a);
    expect(shortenIdentityField('short', 30)).toBe('short');
  });

  test('messages, bodies and output are trimmed, not refused', async () => {
    const long = 'y'.repeat(100);
    const xml = `<testsuite name="s"><testcase name="${'n'.repeat(60)}" classname="c"><failure message="${long}" type="T">${long}</failure><system-out>${long}</system-out></testcase></testsuite>`;
    const file = await parseJunitText(xml, {
      fileName: 'r.xml',
      limits: { maxMessageChars: 10, maxBodyChars: 20, maxOutputChars: 30, maxNameChars: 40 },
    });
    const test = file.testCases[0]!;
    expect(test.name).toHaveLength(40);
    expect(test.attempts[0]).toMatchObject({
      failure: { message: 'y'.repeat(10), body: { text: 'y'.repeat(20), totalChars: 100 } },
      systemOut: { text: 'y'.repeat(30), totalChars: 100 },
    });
  });
});
