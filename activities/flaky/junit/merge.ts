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
import { optional } from './values';

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
  const groups = new Map<string, CaseOccurrence[]>();
  for (const occurrence of occurrences) {
    const identity = shortenIdentity(occurrence.identity, options.limits.maxNameChars);
    const key = identityKey(identity);
    const group = groups.get(key) ?? [];
    group.push({ ...occurrence, identity });
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => mergeGroup(group, options));
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
  return { ...first, status: indexed[indexed.length - 1]!.status, attempts: indexed };
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

function shortenIdentity(identity: CaseIdentity, maxChars: number): CaseIdentity {
  return {
    ...identity,
    classname: shortenIdentityField(identity.classname, maxChars),
    name: shortenIdentityField(identity.name, maxChars),
    parent: shortenIdentityField(identity.parent, maxChars),
    ...optional(
      'file',
      identity.file === undefined ? undefined : shortenIdentityField(identity.file, maxChars),
    ),
  };
}
