/**
 * A JUnit report of the stories' suite `cart` (src/cart.test.ts), as CI uploads it: test name →
 * outcomes, one character per run ('P' passed, 'F' failed with `failure` as its message). Names are
 * the stories' own plain words, written into the XML as they are.
 */
export function cartJunitReport(tests: Record<string, string>, failure: string): string {
  const cases = Object.entries(tests).map(([name, outcomes]) =>
    [...outcomes]
      .map(
        (o) =>
          `<testcase classname="cart" name="${name}" file="src/cart.test.ts">${o === 'F' ? failure : ''}</testcase>`,
      )
      .join(''),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="cart">${cases.join('')}</testsuite></testsuites>`;
}
