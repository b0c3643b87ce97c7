/**
 * Patterns that made the old regular expressions backtrack for minutes (issue 11), shared by the unit
 * tests (which check the step bounds that keep them linear) and bench/patterns/run.ts (which times
 * them against a baseline; wall-clock bounds are not asserted in tests, as they flake under load).
 */
import type { GlobDialect } from '../../platform/glob';

/** Name, dialect, pattern, path. */
export const PATHOLOGICAL_GLOBS: [string, GlobDialect, string, string][] = [
  ['twelve a* then b, 43 a', 'codeowners', 'a*'.repeat(12) + 'b', 'a'.repeat(43)],
  ['twelve a* then b, 4096 a', 'codeowners', 'a*'.repeat(12) + 'b', 'a'.repeat(4096)],
  ['a* x 500, 1000 a and a slash', 'codeowners', 'a*'.repeat(500), `${'a'.repeat(999)}/`],
  ['**/ x 10 then x.xml', 'junit', '**/'.repeat(10) + 'x.xml', `${'a/'.repeat(30)}b.xml`],
  ['**/ x 50 then x.xml', 'junit', '**/'.repeat(50) + 'x.xml', `${'a/'.repeat(2000)}x.xmk`],
  ['**/a x 125, 4 KB of a/', 'junit', '**/a'.repeat(125), 'a/'.repeat(2048)],
  ['*a x 250, 4096 a then b', 'junit', '*a'.repeat(250), `${'a'.repeat(4095)}b`],
];

/** At most four states per pattern character, each visited at most twice per path position. */
export const globStepBound = (pattern: string, path: string): number =>
  2 * (path.length + 1) * (4 * pattern.length + 1) + 1;

/** The reproduced CODEOWNERS rule of issue 11. */
export const REPRODUCED_OWNERS_RULE = 'a*a*a*a*a*a*a*a*a*a*a*a*b';

/** 1,000 reproduced rules against 50 long paths: far past the step limit, which must stop it. */
export const OWNERS_PAST_THE_LIMIT = {
  patterns: Array.from({ length: 1_000 }, () => REPRODUCED_OWNERS_RULE),
  paths: Array.from({ length: 50 }, (_, i) => `${'a'.repeat(990)}${i}`),
  maxSteps: 5_000_000,
};

/** JUnit globs of `**\/` repeated `times` times, for a checkout 30 folders deep (see junitTree). */
export const deepJunitGlobs = (times: number): string[] => [
  '**/'.repeat(times) + 'x.xml',
  `${'**/'.repeat(times)}a/*.xmk`,
];
