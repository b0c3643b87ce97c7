/**
 * The glob matcher: both dialects' semantics as tables (the codeowners rows are what the `ignore`
 * package answered for codeowners-utils; the junit rows what the runner's regular expressions did),
 * and patterns that made those backtrack for minutes, answered within a step count that grows with
 * path length x pattern length, not exponentially (their timings: bench/patterns/run.ts).
 */
import { globStepBound, PATHOLOGICAL_GLOBS } from '../../../bench/patterns/cases';
import { compileGlob, GlobList } from '../../../platform/glob';

describe('codeowners dialect (gitignore rules)', () => {
  it.each([
    // A pattern without a slash matches at any depth, as a file or as a folder on the way.
    ['*.py', 'tests/test_shop.py', true],
    ['*.py', 'shop.py', true],
    ['*.py', 'shop.pyc', false],
    ['docs', 'docs', true],
    ['docs', 'a/docs/b.md', true],
    ['docs', 'a/docs.md', false],
    ['README.md', 'README.md', true],
    // A slash at the start or in the middle anchors at the root.
    ['/docs/', 'docs/guide.md', true],
    ['/docs/', 'a/docs/guide.md', false],
    ['src/app', 'src/app/x.ts', true],
    ['src/app', 'lib/src/app/x.ts', false],
    ['/build', 'build/out.js', true],
    // A trailing slash is a folder and everything under it, never a file of that name.
    ['e2e/', 'e2e/checkout.spec.ts', true],
    ['e2e/', 'tests/e2e/a.ts', true],
    ['e2e/', 'e2e', false],
    // `*` stays in one segment; a final `*` after a `/` needs one character.
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/a/b.ts', false],
    ['docs/*', 'docs/a.md', true],
    ['docs/*', 'docs/a/b.md', true],
    ['docs/*', 'docs', false],
    ['/*', 'anything/at/all', true],
    ['*', 'x', true],
    // `**`: `**/x` at any depth, `/**/` zero or more folders, trailing `/**` everything inside.
    ['**/fixtures', 'a/b/fixtures/x.json', true],
    ['**/fixtures', 'fixtures/x.json', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['src/payments/**', 'src/payments/card.test.ts', true],
    ['src/payments/**', 'src/payments', false],
    ['a**b', 'axxb', true],
    ['a**b', 'ax/xb', false],
    // `?` is one character but not `/`; sets are sets (no negation).
    ['file?.ts', 'file1.ts', true],
    ['file?.ts', 'file/.ts', false],
    ['log[0-9].txt', 'log7.txt', true],
    ['log[0-9].txt', 'logx.txt', false],
    ['[!a]b', '!b', true],
    ['[!a]b', 'cb', false],
    ['[z-a]', 'z', false],
    ['x[]y', 'x[]y', false],
    ['x[abc', 'xa', false],
    // Letters match regardless of case.
    ['*.PY', 'shop.py', true],
    ['/Docs/', 'docs/a.md', true],
    ['[A-C].md', 'b.md', true],
    // Escapes and what never matches.
    ['\\*.py', '*.py', true],
    ['\\*.py', 'a.py', false],
    ['!docs', 'docs/a.md', false],
    ['docs\\', 'docs/a.md', false],
  ])('%s against %s is %p', (pattern, path, expected) => {
    expect(compileGlob(pattern, 'codeowners').matches(path)).toBe(expected);
  });
});

describe('junit dialect (the whole path)', () => {
  it.each([
    ['**/junit*.xml', 'junit.xml', true],
    ['**/junit*.xml', 'a/b/junit-report.xml', true],
    ['**/junit*.xml', 'a/junit/x.xml', false],
    ['**/TEST-*.xml', 'target/surefire-reports/TEST-com.acme.FooTest.xml', true],
    ['**/test-results/**/*.xml', 'build/test-results/test/TEST-a.xml', true],
    ['**/test-results/**/*.xml', 'test-results/a.xml', true],
    ['**/test-results/**/*.xml', 'test-results.xml', false],
    ['out/*.xml', 'out/a.xml', true],
    ['out/*.xml', 'out/sub/a.xml', false],
    ['out/?.xml', 'out/a.xml', true],
    ['out/a+b(1).xml', 'out/a+b(1).xml', true],
    ['out/a.xml', 'out/aXxml', false],
    ['out/[ab].xml', 'out/[ab].xml', true],
    ['out/[ab].xml', 'out/a.xml', false],
    ['reports/**', 'reports/a/b.xml', true],
    ['OUT/*.xml', 'out/a.xml', false],
  ])('%s against %s is %p', (pattern, path, expected) => {
    expect(compileGlob(pattern, 'junit').matches(path)).toBe(expected);
  });
});

describe('a list of globs', () => {
  it('prepares a path once and answers per glob, and names the first that matches', () => {
    const list = new GlobList(['*.go', '/src/', 'src/payments/**'], 'codeowners');
    const path = list.prepare('src/payments/card.go');
    expect([0, 1, 2].map((i) => list.matchesAt(i, path))).toEqual([true, true, true]);
    expect(list.firstMatch('lib/x.go')).toBe(0);
    expect(list.firstMatch('lib/x.ts')).toBe(-1);
  });

  it('knows the top folder of patterns that spell it out', () => {
    const list = new GlobList(['/src/payments/', 'src/a/**', '*.go', '/src*', 'docs/'], 'codeowners');
    expect([0, 1, 2, 3, 4].map((i) => list.leadingSegment(i))).toEqual([
      'SRC',
      'SRC',
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('pathological patterns', () => {
  // Their patterns backtracked exponentially as regular expressions (issue 11). The step bound is what
  // keeps them fast on any machine; bench/patterns/run.ts times them (the old 1 s bound, a wall-clock
  // figure, flaked under load and lives there now).
  it.each(PATHOLOGICAL_GLOBS)('%s: answered within path x pattern steps', (_name, dialect, pattern, path) => {
    const meter = { steps: 0 };
    compileGlob(pattern, dialect).matches(path, meter);
    expect(meter.steps).toBeGreaterThan(0);
    expect(meter.steps).toBeLessThanOrEqual(globStepBound(pattern, path));
  });

  it('counts the same steps for the same inputs', () => {
    const count = () => {
      const meter = { steps: 0 };
      compileGlob('a*'.repeat(12) + 'b', 'codeowners').matches('a'.repeat(43), meter);
      return meter.steps;
    };
    expect(count()).toBe(count());
    expect(count()).toBeGreaterThan(0);
  });
});
