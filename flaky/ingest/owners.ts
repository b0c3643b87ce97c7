/**
 * The owners of an upload's test files, matched before the upload is prepared: every distinct file
 * path once, against the rules of the upload's CODEOWNERS compiled once, by a matcher the caller
 * chooses (the JUnit parser pool's threads, or slices on the calling thread; owners-matching.ts).
 *
 * Invariant: the answer is the one createOwnersResolver gives for the same content and path (the
 * same reading, the same rules, the same path normalisation), or `too_costly` when matching would
 * take more than the limit's steps. The limit makes a CODEOWNERS and a set of paths that cost
 * minutes (backtracking or sheer size) a 400, never a stalled thread.
 */
import {
  CODEOWNERS_LIMITS,
  type CodeownersLimits,
  ownersOfRule,
  readCodeowners,
  repositoryRelative,
} from '../codeowners';
import { type ParsedJunitFile } from '../junit';
import { type OwnersOutcome, type OwnersRequest } from '../owners-matching';

/** Owners by test file path as the parser wrote it (`test.file`). */
export type OwnersByFile = ReadonlyMap<string, readonly string[]>;

export type UploadOwners =
  | { readonly kind: 'owners'; readonly byFile: OwnersByFile }
  /** `problem` completes "Field 'codeowners' …". */
  | { readonly kind: 'refused'; readonly problem: string };

export type OwnersMatcher = (request: OwnersRequest) => Promise<OwnersOutcome>;

export async function matchUploadOwners(
  codeowners: string,
  files: readonly ParsedJunitFile[],
  match: OwnersMatcher,
  limits: CodeownersLimits = CODEOWNERS_LIMITS,
): Promise<UploadOwners> {
  const reading = readCodeowners(codeowners, limits);
  if (reading.kind === 'refused') return reading;
  const byFile = new Map<string, readonly string[]>();
  if (reading.rules.length === 0) return { kind: 'owners', byFile };
  // Distinct spellings of a path share one match: `./a.ts` and `a.ts` are the same file.
  const pathOf = new Map<string, string>();
  for (const file of files)
    for (const test of file.testCases) {
      if (test.file === undefined || pathOf.has(test.file)) continue;
      const path = repositoryRelative(test.file);
      if (path !== undefined) pathOf.set(test.file, path);
    }
  const paths = [...new Set(pathOf.values())];
  if (paths.length === 0) return { kind: 'owners', byFile };
  const outcome = await match({
    patterns: reading.rules.map((r) => r.pattern),
    paths,
    maxSteps: limits.maxMatchSteps,
  });
  switch (outcome.kind) {
    case 'too_costly':
      return {
        kind: 'refused',
        problem: `takes more than ${limits.maxMatchSteps} steps to match against this upload's test files; use fewer or simpler patterns`,
      };
    case 'matched': {
      const ownersOfPath = new Map<string, readonly string[]>();
      paths.forEach((path, i) => ownersOfPath.set(path, ownersOfRule(reading.rules, outcome.rules[i]!)));
      for (const [file, path] of pathOf) byFile.set(file, ownersOfPath.get(path)!);
      return { kind: 'owners', byFile };
    }
  }
}
