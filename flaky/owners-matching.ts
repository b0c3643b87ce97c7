/**
 * Which CODEOWNERS rule owns each test file of an upload: the last rule whose pattern matches. The
 * rules are compiled once (platform/glob.ts, linear-time matching) and each distinct path
 * is matched once, from the last rule back, stopping at the first match.
 *
 * Rules that name their top folder (`/src/payments/`, `docs/api/**` anchored) are indexed by it, so a
 * path is only tried against the rules of its own top folder and the rules that could match anywhere:
 * a large CODEOWNERS costs little per path.
 *
 * An {@link OwnersJob} does the work of one upload in slices and counts the steps (glob-nfa.ts): it
 * stops with `too_costly` past `maxSteps`, so no CODEOWNERS and no set of paths can hold a thread
 * for longer than the budget (plus one (path, rule) pair, at most path length x pattern states).
 * The outcome depends only on the request: the same upload always gets the same answer.
 *
 * Where it runs: on a thread of the JUnit parser pool (junit/pool/), or, without one, on the calling
 * thread in slices that give the event loop back between them ({@link matchOwnersInSlices}).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { GlobList, type PreparedPath, type StepMeter } from '../platform/glob';

export interface OwnersRequest {
  /** The CODEOWNERS patterns in file order. */
  readonly patterns: readonly string[];
  /** Distinct repository-relative paths (codeowners.ts `repositoryRelative`). */
  readonly paths: readonly string[];
  readonly maxSteps: number;
}

export type OwnersOutcome =
  /** `rules[i]`: index in `patterns` of the rule that owns `paths[i]`, or -1 when none matches. */
  | { readonly kind: 'matched'; readonly rules: Int32Array; readonly steps: number }
  | { readonly kind: 'too_costly'; readonly steps: number };

const NONE: readonly number[] = [];

/** The compiled rules with their top-folder index. */
export class OwnersMatching {
  private readonly globs: GlobList;
  /** Rules by the folded top folder all their matches are in, ascending. */
  private readonly byTopFolder = new Map<string, number[]>();
  /** Rules that may match under any top folder, ascending. */
  private readonly anywhere: number[] = [];

  constructor(patterns: readonly string[]) {
    this.globs = new GlobList(patterns, 'codeowners');
    for (let i = 0; i < patterns.length; i += 1) {
      const top = this.globs.leadingSegment(i);
      if (top === undefined) this.anywhere.push(i);
      else {
        const rules = this.byTopFolder.get(top);
        if (rules === undefined) this.byTopFolder.set(top, [i]);
        else rules.push(i);
      }
    }
  }

  /** The index of the last rule that matches `path`, or -1. */
  lastMatch(path: string, meter?: StepMeter): number {
    const candidates = this.candidates(path);
    for (let next = candidates.next(); next >= 0; next = candidates.next())
      if (this.globs.matchesAt(next, candidates.path, meter)) return next;
    return -1;
  }

  /** The rules that could match `path`, last first. */
  candidates(path: string): Candidates {
    const prepared = this.globs.prepare(path);
    const slash = prepared.text.indexOf('/');
    const top = slash === -1 ? prepared.text : prepared.text.slice(0, slash);
    return new Candidates(prepared, this.byTopFolder.get(top) ?? NONE, this.anywhere);
  }

  matchesAt(rule: number, path: PreparedPath, meter: StepMeter): boolean {
    return this.globs.matchesAt(rule, path, meter);
  }
}

/** Two ascending lists of rule indexes walked together from their ends: descending, no repeats. */
class Candidates {
  private a: number;
  private b: number;

  constructor(
    readonly path: PreparedPath,
    private readonly first: readonly number[],
    private readonly second: readonly number[],
  ) {
    this.a = first.length - 1;
    this.b = second.length - 1;
  }

  /** The next rule to try, or -1 when none is left. */
  next(): number {
    const x = this.a >= 0 ? this.first[this.a]! : -1;
    const y = this.b >= 0 ? this.second[this.b]! : -1;
    if (x > y) this.a -= 1;
    else if (y >= 0) this.b -= 1;
    return Math.max(x, y);
  }
}

/** One upload's matching, resumable: {@link run} works for a slice of steps at a time. */
export class OwnersJob {
  private readonly matching: OwnersMatching;
  private readonly rules: Int32Array;
  private readonly meter: StepMeter = { steps: 0 };
  private pathIndex = 0;
  private current: Candidates | undefined;
  private result: OwnersOutcome | undefined;

  constructor(private readonly request: OwnersRequest) {
    this.matching = new OwnersMatching(request.patterns);
    this.rules = new Int32Array(request.paths.length).fill(-1);
  }

  /** Works until done or until `sliceSteps` more steps are spent; true when done. */
  run(sliceSteps = Infinity): boolean {
    if (this.result !== undefined) return true;
    const stopAt = this.meter.steps + sliceSteps;
    const { paths, maxSteps } = this.request;
    while (this.pathIndex < paths.length) {
      const candidates = (this.current ??= this.matching.candidates(paths[this.pathIndex]!));
      const rule = candidates.next();
      // Every pair tried counts, even one a literal check settles: the number of pairs is bounded too.
      this.meter.steps += 1;
      const owned = rule >= 0 && this.matching.matchesAt(rule, candidates.path, this.meter);
      if (this.meter.steps > maxSteps) {
        this.result = { kind: 'too_costly', steps: this.meter.steps };
        return true;
      }
      if (owned) this.rules[this.pathIndex] = rule;
      if (owned || rule < 0) {
        this.current = undefined;
        this.pathIndex += 1;
      }
      if (this.meter.steps >= stopAt) return this.finishIfDone();
    }
    return this.finishIfDone();
  }

  private finishIfDone(): boolean {
    if (this.pathIndex < this.request.paths.length) return false;
    this.result = { kind: 'matched', rules: this.rules, steps: this.meter.steps };
    return true;
  }

  get outcome(): OwnersOutcome {
    if (this.result === undefined) throw new Error('the owners job has not finished');
    return this.result;
  }
}

/** The whole job at once: for a thread that does nothing else (the parser pool's). */
export function matchOwnersNow(request: OwnersRequest): OwnersOutcome {
  const job = new OwnersJob(request);
  job.run();
  return job.outcome;
}

/**
 * The job on the calling thread, giving the event loop back every `sliceSteps` steps (about a
 * millisecond each by default), so other requests are answered while it runs.
 */
export async function matchOwnersInSlices(
  request: OwnersRequest,
  sliceSteps = 200_000,
): Promise<OwnersOutcome> {
  const job = new OwnersJob(request);
  while (!job.run(sliceSteps)) await nextTurn();
  return job.outcome;
}
