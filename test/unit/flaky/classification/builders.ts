/**
 * A small language for test histories: `'F,P;P;F'` is three commits (`;`), the first run twice
 * (`,`: attempts of one upload), F = fail, P = pass, S = skip. Each commit is one upload.
 */
import {
  type BranchClass,
  type ObservedResult,
  type Outcome,
  type UploadSummary,
} from '../../../../flaky/classification';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = Date.parse('2026-11-01T00:00:00.000Z');

export interface Runs {
  readonly results: ObservedResult[];
  readonly uploads: UploadSummary[];
}

export interface RunOptions {
  /** Time of the first commit's upload (epoch ms). */
  readonly start?: number;
  /** Time between commits. */
  readonly step?: number;
  readonly branchClass?: BranchClass;
  /** Commit shas are `${prefix}${index}`, padded so the 7-character reason prefix stays unique. */
  readonly prefix?: string;
  readonly testId?: string;
}

const OUTCOMES: Record<string, Outcome> = { F: 'fail', P: 'pass', S: 'skip' };

export function runs(spec: string, options: RunOptions = {}): Runs {
  const { start = T0, step = HOUR, branchClass = 'stable', prefix = 'c', testId = 'test-1' } = options;
  const results: ObservedResult[] = [];
  const uploads: UploadSummary[] = [];
  spec.split(';').forEach((commit, index) => {
    const commitSha = `${prefix}${String(index).padStart(6, '0')}`;
    const uploadId = `${prefix}-upload-${index}`;
    const outcomes = commit.split(',').map((letter) => {
      const outcome = OUTCOMES[letter.trim()];
      if (outcome === undefined) throw new Error(`bad run letter ${letter}`);
      return outcome;
    });
    outcomes.forEach((outcome, attempt) =>
      results.push({
        uploadId,
        testId,
        attempt,
        outcome,
        commitSha,
        branchClass,
        at: new Date(start + index * step),
      }),
    );
    const ran = outcomes.filter((o) => o !== 'skip');
    uploads.push({ uploadId, results: ran.length, failures: ran.filter((o) => o === 'fail').length });
  });
  return { results, uploads };
}

export function join(...parts: Runs[]): Runs {
  return { results: parts.flatMap((p) => p.results), uploads: parts.flatMap((p) => p.uploads) };
}

/** A run of n single-attempt commits, failing at the given positions. */
export function series(n: number, failAt: readonly number[]): string {
  return Array.from({ length: n }, (_, i) => (failAt.includes(i) ? 'F' : 'P')).join(';');
}
