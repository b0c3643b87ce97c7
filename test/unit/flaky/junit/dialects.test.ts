/**
 * Every fixture in test/fixtures/junit, parsed as streamed chunks: dialect, counts, identity
 * fields and the attempts of retried tests in order.
 */
import { byName, parseFixture, shape } from './fixtures';

describe('Jest (jest-junit)', () => {
  test('jest-junit with retryTimes keeps only the final result of a retried test', async () => {
    const file = await parseFixture('jest-junit-retries.xml');
    expect(file.dialect).toBe('jest');
    expect(file.summary).toMatchObject({
      tests: 5,
      attempts: 5,
      passed: 3,
      failed: 1,
      skipped: 1,
      retried: 0,
    });
    expect(shape(byName(file, 'math always fails'))).toBe(
      'sum.test.js | math always fails | math | math always fails => failed(testcase)',
    );
    expect(byName(file, 'math always fails').attempts[0]!.failure?.body?.text).toMatch(
      /^Error: expect\(received\)\.toEqual/,
    );
  });

  test('an invocation count property restores the failed attempts jest-junit drops', async () => {
    const file = await parseFixture('jest-junit-invocations.xml');
    expect(file.dialect).toBe('jest');
    expect(file.testCases.map(shape)).toEqual([
      'src/cart.test.js | cart adds an item | cart | cart adds an item => passed(testcase)',
      'src/cart.test.js | cart checkout applies the discount after a retry | cart | cart checkout applies the discount after a retry => failed(invocations) passed(testcase)',
      'src/cart.test.js | cart checkout rejects an expired card | cart | cart checkout rejects an expired card => failed(invocations) failed(invocations) failed(testcase)',
      'src/cart.test.js | cart ships abroad | cart | cart ships abroad => skipped(testcase)',
    ]);
  });
});

describe('pytest', () => {
  test('xunit2: file recovered from classname, setup error and skip reason kept', async () => {
    const file = await parseFixture('pytest-xunit2.xml');
    expect(file.dialect).toBe('pytest');
    expect(file.summary).toMatchObject({ tests: 6, passed: 3, failed: 1, error: 1, skipped: 1 });
    expect(shape(byName(file, 'test_total_with_tax'))).toBe(
      'test_shop.py | test_shop.TestCart | pytest | test_total_with_tax => failed(testcase)',
    );
    expect(byName(file, 'test_total_with_tax').attempts[0]!.failure?.message).toBe(
      'AssertionError: tax rounding drifted\nassert 12.0 == 12.01\n +  where 12.0 = round((10 * 1.2), 2)',
    );
    expect(byName(file, 'test_uses_db').attempts[0]).toMatchObject({
      status: 'error',
      failure: { message: expect.stringMatching(/^failed on setup/) },
    });
    expect(byName(file, 'test_checkout').attempts[0]!.skip).toMatchObject({
      message: 'payment sandbox unavailable',
      type: 'pytest.skip',
    });
    expect(byName(file, 'test_format_price[eur]').file).toBe('test_shop.py');
  });

  test('xunit1: file and line attributes are used as written', async () => {
    const file = await parseFixture('pytest-xunit1.xml');
    expect(byName(file, 'test_format[usd]')).toMatchObject({
      file: 'tests/test_inventory.py',
      line: 25,
      classname: 'tests.test_inventory.TestPricing',
    });
  });

  test('pytest-rerunfailures: empty earlier repeats are failed reruns', async () => {
    const file = await parseFixture('pytest-rerunfailures.xml');
    expect(file.summary).toMatchObject({ tests: 5, attempts: 8, passed: 4, failed: 1, retried: 2 });
    expect(shape(byName(file, 'test_reserve_is_flaky'))).toBe(
      'tests/test_inventory.py | tests.test_inventory | pytest | test_reserve_is_flaky => failed(rerun_inferred) passed(repeated)',
    );
    expect(shape(byName(file, 'test_restock_always_fails'))).toBe(
      'tests/test_inventory.py | tests.test_inventory | pytest | test_restock_always_fails => failed(rerun_inferred) failed(rerun_inferred) failed(repeated)',
    );
  });
});

describe('Go', () => {
  test('go-junit-report: package as classname and parent, subtests by full name', async () => {
    const file = await parseFixture('go-junit-report.xml');
    expect(file.dialect).toBe('go');
    expect(file.summary).toMatchObject({ tests: 7, passed: 2, failed: 4, skipped: 1 });
    expect(shape(byName(file, 'TestDiscounts/ten_percent'))).toBe(
      '- | example.com/shop/shop | example.com/shop/shop | TestDiscounts/ten_percent => failed(testcase)',
    );
    expect(byName(file, 'TestTotalRounding').attempts[0]!.failure).toEqual({
      message: 'Failed',
      body: { text: 'cart_test.go:18: Total(10, 20) = 30, want 31', totalChars: 48 },
    });
  });

  test('gotestsum --rerun-fails: repeated testcases become ordered attempts', async () => {
    const file = await parseFixture('gotestsum-rerun-fails.xml');
    expect(file.dialect).toBe('go');
    expect(file.summary).toMatchObject({
      tests: 7,
      attempts: 14,
      passed: 3,
      failed: 3,
      skipped: 1,
      retried: 4,
    });
    expect(shape(byName(file, 'TestFlakyInventory'))).toBe(
      '- | example.com/shop/shop | example.com/shop/shop | TestFlakyInventory => failed(testcase) passed(repeated)',
    );
    expect(byName(file, 'TestTotalRounding').attempts.map((a) => a.status)).toEqual([
      'failed',
      'failed',
      'failed',
    ]);
    expect(byName(file, 'TestWarehouse').attempts[0]!.skip?.message).toMatch(/warehouse sandbox unavailable/);
  });
});

describe('Maven Surefire', () => {
  test('flakyFailure, flakyError, rerunFailure and rerunError become attempts', async () => {
    const file = await parseFixture('surefire-rerun.xml');
    expect(file.dialect).toBe('surefire');
    expect(file.summary).toMatchObject({
      tests: 6,
      attempts: 12,
      passed: 3,
      failed: 1,
      error: 1,
      skipped: 1,
      retried: 4,
    });
    expect(file.testCases.map(shape)).toEqual([
      '- | com.example.shop.CartTest | com.example.shop.CartTest | appliesDiscount => failed(flakyFailure) passed(testcase)',
      '- | com.example.shop.CartTest | com.example.shop.CartTest | shipsAbroad => skipped(testcase)',
      '- | com.example.shop.CartTest | com.example.shop.CartTest | addsItem => passed(testcase)',
      '- | com.example.shop.CartTest | com.example.shop.CartTest | computesTax => failed(testcase) failed(rerunFailure) failed(rerunFailure)',
      '- | com.example.shop.CartTest | com.example.shop.CartTest | reservesStock => error(flakyError) passed(testcase)',
      '- | com.example.shop.CartTest | com.example.shop.CartTest | talksToPaymentGateway => error(testcase) error(rerunError) error(rerunError)',
    ]);
    const flaky = byName(file, 'appliesDiscount').attempts[0]!;
    expect(flaky.failure).toMatchObject({
      message: 'discounted total ==> expected: <90> but was: <100>',
      type: 'org.opentest4j.AssertionFailedError',
      body: { text: expect.stringMatching(/^org\.opentest4j\.AssertionFailedError: discounted total/) },
    });
    expect(byName(file, 'appliesDiscount').attempts[1]).toMatchObject({ status: 'passed', durationMs: 5 });
  });
});

describe('Playwright', () => {
  test('default reporter: the project is the parent, describe titles are the describe path', async () => {
    const file = await parseFixture('playwright.xml');
    expect(file.dialect).toBe('playwright');
    expect(file.summary).toMatchObject({ tests: 10, passed: 4, failed: 2, error: 2, skipped: 2, retried: 0 });
    const test = byName(file, 'payment › rejects an expired card', 'firefox');
    expect(test).toMatchObject({
      file: 'checkout.spec.js',
      classname: 'checkout.spec.js',
      suite: 'checkout.spec.js',
      describePath: ['payment'],
    });
    expect(test.attempts[0]!.failure).toMatchObject({
      message: 'expect(received).toEqual(expected) // deep equality',
      type: 'expect.toEqual',
    });
    expect(byName(file, 'shows the cart total', 'chromium').attempts[0]!.systemOut?.text).toBe(
      'cart total rendered',
    );
  });

  test('includeRetries: retry children give every attempt, first failure before reruns', async () => {
    const file = await parseFixture('playwright-include-retries.xml');
    expect(file.summary).toMatchObject({ tests: 10, attempts: 20, retried: 6 });
    expect(shape(byName(file, 'payment › accepts a saved card after a retry', 'chromium'))).toBe(
      'checkout.spec.js | checkout.spec.js | chromium | payment › accepts a saved card after a retry => failed(flakyFailure) passed(testcase)',
    );
    const rejected = byName(file, 'payment › rejects an expired card', 'chromium');
    expect(rejected.attempts.map((a) => `${a.status}(${a.origin})`)).toEqual([
      'failed(testcase)',
      'failed(rerunFailure)',
      'failed(rerunFailure)',
    ]);
    expect(rejected.attempts[1]).toMatchObject({
      durationMs: 11,
      systemOut: { text: expect.stringContaining('retry1') },
    });
    expect(shape(byName(file, 'payment › talks to the fraud service', 'firefox'))).toBe(
      'checkout.spec.js | checkout.spec.js | firefox | payment › talks to the fraud service => error(testcase) error(rerunError) error(rerunError)',
    );
  });
});

test('chunk size does not change the result', async () => {
  for (const name of ['surefire-rerun.xml', 'playwright-include-retries.xml', 'pytest-xunit2.xml']) {
    expect(await parseFixture(name, 7)).toEqual(await parseFixture(name, 1 << 20));
  }
});
