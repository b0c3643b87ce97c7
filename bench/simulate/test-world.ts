/**
 * The flaky-test world (issue 28): flakes belong to tests, not to runs.
 *
 * A repository has `tests` tests; `flaky` of them are flaky, with per-run failure probabilities
 * q_i = 1 - (1 - f)^(w_i / W), w_i = 1/i (a few flaky tests give most flakes, as in real suites),
 * W = sum of w_i. So a run of the whole suite passes every flaky test with probability
 * prod (1 - q_i) = (1 - f)^(sum w_i / W) = 1 - f: it fails spuriously exactly as often as a run of the
 * per-run world (world.ts), and the two worlds' rows are comparable. A bad PR breaks 1 to
 * `maxBrokenPerBadPr` tests of its own, drawn uniformly from all tests (so now and then a flaky one).
 *
 * A run executes the whole suite, or only the tests the engine names (`onlyTests`: a flaky retry, a
 * bisection chunk); it fails iff one of them fails: a test that a PR of its tree breaks, or a flaky
 * test that flakes now. Its report names its failed tests as the workflow passes them on (the queue's
 * command runner, workflows/queue/run-result.ts): each with `quarantined: false` (nothing is
 * quarantined here) and `flaky: true` only when the flaky-test service knew the test as flaky when the
 * run was judged (flaky/ingest/judge.ts sets it for failed tests only). Passed tests are left out: the
 * engine reads only failed ones (engine/failed-tests.ts, verdict.ts).
 *
 * What the service knows: a flaky test is known from its first flake on (the flake that taught it
 * is not itself judged known flaky); `knownAtStart` of them (the heaviest first) are known before
 * the first run. Why learning, not omniscience: the service classifies a test flaky on same-commit
 * disagreement (flaky/classification/mixed.ts), which in a real repository comes within days from PR
 * CI reruns and main, not from the queue; crediting it at the first flake seen here is the
 * optimistic end of that, and the flakes before it are paid for in the rows (the warm-up hides only
 * the first 10% of PRs). A test broken by a bad PR is never learnt as flaky (it failed for a reason).
 *
 * Invariants: draws come from this world's own generator (the per-run world's stream of arrivals,
 * PR badness and CI durations is left as it is); a run reports each failed test once.
 */
import { type TestCaseResult } from '../../engine';
import { type Rng } from './rng';

export interface TestWorldSpec {
  /** Tests in the repository. */
  tests: number;
  /** Flaky tests among them. */
  flaky: number;
  /** A bad PR breaks 1 to this many tests (uniform). */
  maxBrokenPerBadPr: number;
  /** Share of the flaky tests the service knows as flaky before the first run (0 to 1). */
  knownAtStart: number;
  /**
   * Whether a run's report names its failed tests to the engine. false is today's run-level engine:
   * no test-level verdict can apply (failed-tests.ts: no detail leaves the run-level rules in force).
   */
  report: boolean;
}

/** The per-test flake probabilities whose whole-suite failure probability is f (see the rule). */
export function flakeProbabilities(f: number, flaky: number): number[] {
  const weights = Array.from({ length: flaky }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => 1 - (1 - f) ** (w / total));
}

export const testName = (i: number): string => `suite-${Math.floor(i / 20)} › case-${i % 20}`;

export class TestWorld {
  /** Flaky test index → its per-run failure probability. */
  private readonly flakes: number[];
  private readonly known = new Set<number>();

  constructor(
    private readonly spec: TestWorldSpec,
    f: number,
    private readonly rng: Rng,
  ) {
    this.flakes = flakeProbabilities(f, spec.flaky);
    const atStart = Math.round(spec.knownAtStart * spec.flaky);
    for (let i = 0; i < atStart; i += 1) this.known.add(i);
  }

  /** The tests a new bad PR breaks (indices; flaky tests are 0..flaky-1). */
  brokenByBadPr(): number[] {
    const count = 1 + Math.floor(this.rng.next() * this.spec.maxBrokenPerBadPr);
    const out = new Set<number>();
    while (out.size < Math.min(count, this.spec.tests))
      out.add(Math.floor(this.rng.next() * this.spec.tests));
    return [...out];
  }

  /**
   * One run: `broken` are the tests its tree's bad PRs break, `onlyTests` the engine's selection.
   * Returns the outcome and, if reported, the failed tests as the engine's event carries them.
   */
  run(
    broken: ReadonlySet<number>,
    onlyTests: readonly string[] | undefined,
  ): { failed: boolean; tests: TestCaseResult[] | undefined } {
    const selected = onlyTests ? new Set(onlyTests) : null;
    const inScope = (i: number) => selected === null || selected.has(testName(i));
    const failed = new Set<number>();
    for (const i of broken) if (inScope(i)) failed.add(i);
    const flaked: number[] = [];
    this.flakes.forEach((q, i) => {
      // Drawn for every flaky test, selected or not, so a selection does not shift later draws.
      if (this.rng.next() < q && inScope(i) && !failed.has(i)) flaked.push(i);
    });
    // Judged with what the service knew before this run: a first flake is not yet known.
    const tests = [...failed, ...flaked].map((i): TestCaseResult => ({
      name: testName(i),
      status: 'failed',
      quarantined: false,
      ...(this.known.has(i) ? { flaky: true } : {}),
    }));
    for (const i of flaked) this.known.add(i);
    return { failed: tests.length > 0, tests: this.spec.report ? tests : undefined };
  }

  knownFlaky(): number {
    return this.known.size;
  }
}
