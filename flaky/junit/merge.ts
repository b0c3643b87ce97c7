/**
 * Repeated testcases of one test become one test with ordered attempts.
 *
 * Several writers record a retried test by writing it again: gotestsum `--rerun-fails`, Go
 * `-count=N`, pytest-rerunfailures, per-attempt Jest and Playwright reporters. Occurrences with the
 * same identity key (file, classname, parent, name) are joined in document order, or in
 * `attempt_number` order when every occurrence carries that attribute (Trunk's extension).
 *
 * Invariants: tests keep the order of their first occurrence; attempt indexes are 0..n-1; a test
 * with more attempts than the limit refuses the file rather than silently dropping some.
 */
import { JunitParseError } from './errors';
import { type JunitLimits, shortenIdentityField } from './limits';
import { type CaseIdentity } from './dialects';
import { type ParsedAttempt, type ParsedTestCase } from './types';
import { type Mutable, optional } from './values';

export interface CaseOccurrence {
  readonly identity: CaseIdentity;
  readonly attempts: readonly ParsedAttempt[];
  readonly attemptNumber?: number;
}

export interface MergeOptions {
  readonly fileName: string;
  readonly limits: JunitLimits;
  readonly emptyRepeatsAreFailedReruns: boolean;
}

export function identityKey(identity: Pick<CaseIdentity, 'file' | 'classname' | 'parent' | 'name'>): string {
  return JSON.stringify([identity.file ?? '', identity.classname, identity.parent, identity.name]);
}

export function mergeOccurrences(
  occurrences: readonly CaseOccurrence[],
  options: MergeOptions,
): ParsedTestCase[] {
  // Most tests occur once per file: a group is kept as its lone occurrence until a repeat shows up,
  // so the common case allocates no group array and copies no attempts (runs once per testcase).
  const groups = new Map<string, CaseOccurrence | CaseOccurrence[]>();
  for (const occurrence of occurrences) {
    const identity = shortenIdentity(occurrence.identity, options.limits.maxNameChars);
    const kept = identity === occurrence.identity ? occurrence : { ...occurrence, identity };
    const key = identityKey(identity);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, kept);
    else if (Array.isArray(group)) group.push(kept);
    else groups.set(key, [group, kept]);
  }
  const tests: ParsedTestCase[] = [];
  for (const group of groups.values())
    tests.push(Array.isArray(group) ? mergeGroup(group, options) : single(group, options));
  return tests;
}

/**
 * A test written once: its attempts stand as attemptsOf numbered them (0..n-1), and `reread`
 * changes nothing for the first and last occurrence, so no copy is needed.
 */
function single(occurrence: CaseOccurrence, options: MergeOptions): ParsedTestCase {
  const { attempts } = occurrence;
  if (attempts.length > options.limits.maxAttemptsPerTest) {
    throw new JunitParseError(options.fileName, {
      kind: 'too_many_attempts',
      test: occurrence.identity.name,
      limit: options.limits.maxAttemptsPerTest,
    });
  }
  return withAttempts(occurrence.identity, attempts);
}

/** The test: its identity fields, copied one by one (a spread of them showed in profiles). */
function withAttempts(identity: CaseIdentity, attempts: readonly ParsedAttempt[]): ParsedTestCase {
  const test: Mutable<ParsedTestCase> = {
    suite: identity.suite,
    classname: identity.classname,
    name: identity.name,
    parent: identity.parent,
    status: attempts[attempts.length - 1]!.status,
    attempts,
  };
  if ('file' in identity) test.file = identity.file;
  if (identity.line !== undefined) test.line = identity.line;
  if (identity.describePath !== undefined) test.describePath = identity.describePath;
  return test;
}

function mergeGroup(group: CaseOccurrence[], options: MergeOptions): ParsedTestCase {
  const ordered = group.every((o) => o.attemptNumber !== undefined)
    ? [...group].sort((a, b) => (a.attemptNumber ?? 0) - (b.attemptNumber ?? 0))
    : group;
  const attempts = ordered.flatMap((occurrence, position) =>
    occurrence.attempts.map((attempt) => reread(attempt, position, position === ordered.length - 1, options)),
  );
  const first = ordered[0]!.identity;
  if (attempts.length > options.limits.maxAttemptsPerTest) {
    throw new JunitParseError(options.fileName, {
      kind: 'too_many_attempts',
      test: first.name,
      limit: options.limits.maxAttemptsPerTest,
    });
  }
  const indexed = attempts.map((attempt, index) => ({ ...attempt, index }));
  return withAttempts(first, indexed);
}

/** Marks where a repeat came from, and reads pytest's empty reruns as the failures they were. */
function reread(
  attempt: ParsedAttempt,
  position: number,
  isLast: boolean,
  options: MergeOptions,
): ParsedAttempt {
  const emptyRerun =
    options.emptyRepeatsAreFailedReruns &&
    !isLast &&
    attempt.status === 'passed' &&
    attempt.origin === 'testcase';
  if (emptyRerun) return { ...attempt, status: 'failed', origin: 'rerun_inferred' };
  if (position === 0 || attempt.origin !== 'testcase') return attempt;
  return { ...attempt, origin: 'repeated' };
}

/** The identity with long fields shortened; the same object when nothing is too long (the norm). */
function shortenIdentity(identity: CaseIdentity, maxChars: number): CaseIdentity {
  const { classname, name, parent, file } = identity;
  const fits =
    classname.length <= maxChars &&
    name.length <= maxChars &&
    parent.length <= maxChars &&
    (file === undefined || file.length <= maxChars);
  if (fits) return identity;
  return {
    ...identity,
    classname: shortenIdentityField(classname, maxChars),
    name: shortenIdentityField(name, maxChars),
    parent: shortenIdentityField(parent, maxChars),
    ...optional('file', file === undefined ? undefined : shortenIdentityField(file, maxChars)),
  };
}
