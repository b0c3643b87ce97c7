/**
 * jsonBytes counts a string as Temporal stores it (UTF-8 bytes of its JSON text), and
 * CONTROL_OR_LONE_SURROGATE finds what names a tenant sets must not hold (issue 24).
 */
import fc from 'fast-check';
import { CONTROL_OR_LONE_SURROGATE, jsonBytes } from '../../../contract';

test('jsonBytes is the UTF-8 length of JSON.stringify, for any string (lone surrogates included)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      for (const s of [a, b, a + b, b + a.slice(0, 1)])
        expect(jsonBytes(s)).toBe(Buffer.byteLength(JSON.stringify(s)));
    }),
    { numRuns: 2_000 },
  );
  for (const s of ['', '\u0001', '\n', '"\\', '\ud800', '\udc00x', '\u{1F600}', '\u4e2d', '\u2028'])
    expect(jsonBytes(s)).toBe(Buffer.byteLength(JSON.stringify(s)));
});

test.each([
  ['a control character', 'a\u0001b', true],
  ['a newline', 'a\nb', true],
  ['DEL', 'a\u007f', true],
  ['a C1 control', 'a\u0085', true],
  ['a lone high surrogate', 'a\ud800b', true],
  ['a lone low surrogate', '\udc00', true],
  ['a surrogate pair', 'a\u{1F600}b', false],
  ['Bazel label', '//src/app:lib', false],
  ['CJK', '\u4e2d\u6587', false],
])('CONTROL_OR_LONE_SURROGATE on %s', (_what, value, found) => {
  expect(CONTROL_OR_LONE_SURROGATE.test(value)).toBe(found);
});
