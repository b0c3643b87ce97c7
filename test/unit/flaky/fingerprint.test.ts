import { fingerprintFailure, firstMeaningfulLine, normaliseFailureLine } from '../../../flaky/fingerprint';

describe('failure fingerprints', () => {
  test.each([
    [
      'numbers and line:column',
      'at checkout.spec.ts:14:36 expected 3 got 4',
      'at checkout.spec.ts:<n>:<n> expected <n> got <n>',
    ],
    [
      'hex addresses',
      '<test_shop.TestCart object at 0x7f114dcb7e10>',
      '<test_shop.TestCart object at <hex>>',
    ],
    ['long hex ids', 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 missing', 'commit <hex> missing'],
    ['uuids', 'order 550e8400-e29b-41d4-a716-446655440000 not found', 'order <uuid> not found'],
    [
      'timestamps',
      'lease expired at 2026-11-21T22:38:19.123Z (now 22:40:01)',
      'lease expired at <time> (now <time>)',
    ],
    ['temp paths', "ENOENT: open '/tmp/jest_rs/abc/cache.json'", "ENOENT: open '<tmp>'"],
    ['macOS temp paths', 'cannot write /private/var/folders/x/T/tmp.1/out', 'cannot write <tmp>'],
    ['durations', 'timed out after 30000ms (waited 1.5 s)', 'timed out after <duration> (waited <duration>)'],
    ['ANSI colours and spaces', '\u001b[31mexpected\u001b[39m   true', 'expected true'],
    ['ip addresses and ports', 'connect ECONNREFUSED 127.0.0.1:8443', 'connect ECONNREFUSED <n>:<n>'],
  ])('normalises %s', (_name, line, expected) => {
    expect(normaliseFailureLine(line)).toBe(expected);
  });

  test.each([
    [
      'the message when it says something',
      { message: 'AssertionError: x\nassert 1 == 2', body: 'self = <X>' },
      'AssertionError: x',
    ],
    [
      "the body when the message is Go's placeholder",
      {
        message: 'Failed',
        body: '=== RUN   TestA\n    a_test.go:9: got 1, want 2\n--- FAIL: TestA (0.00s)\n',
      },
      'a_test.go:9: got 1, want 2',
    ],
    [
      "pytest's E line",
      { body: 'def test():\n>       assert x\nE       AssertionError: boom\n\ntest_a.py:3: AssertionError' },
      'AssertionError: boom',
    ],
    [
      'past a Playwright header',
      {
        message: 'a.spec.ts:10:5 t',
        body: '  [chromium] › a.spec.ts:10:5 › t ─────\n\n    Error: expect(received).toBe(expected)',
      },
      'Error: expect(received).toBe(expected)',
    ],
    ['the type when there is no text', { type: 'java.lang.OutOfMemoryError' }, 'java.lang.OutOfMemoryError'],
    ['a placeholder when there is nothing', {}, '(no failure message)'],
  ])('takes %s', (_name, failure, line) => {
    expect(firstMeaningfulLine(failure)).toBe(line);
  });

  test('failures differing only in volatile details share a fingerprint', () => {
    const a = fingerprintFailure({
      message: 'timeout after 5000ms waiting for order 550e8400-e29b-41d4-a716-446655440000',
      type: 'TimeoutError',
    });
    const b = fingerprintFailure({
      message: 'timeout after 731ms waiting for order 123e4567-e89b-12d3-a456-426614174000',
      type: 'TimeoutError',
    });
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(a.summary).toBe('timeout after <duration> waiting for order <uuid>');
    expect(a.sample).toBe('timeout after 5000ms waiting for order 550e8400-e29b-41d4-a716-446655440000');
  });

  test('a meaningful type separates otherwise equal messages; a placeholder type does not', () => {
    const message = 'boom';
    expect(fingerprintFailure({ message, type: 'IOError' }).fingerprint).not.toBe(
      fingerprintFailure({ message, type: 'ValueError' }).fingerprint,
    );
    expect(fingerprintFailure({ message, type: 'FAILURE' }).fingerprint).toBe(
      fingerprintFailure({ message }).fingerprint,
    );
  });

  test('summaries are cut to 200 characters', () => {
    expect(fingerprintFailure({ message: 'x'.repeat(500) }).summary).toHaveLength(200);
  });
});
