/**
 * The policies the benchmark measures (the list), each with its analytic bound from
 * merge-queue-anchors.md §5 and the queue settings that express it.
 */
import { type QueueConfigPatch } from '../../engine';
import { optimisticBound, pipelinedBatchCeiling, serialBound } from './bounds';
import { type TestWorldSpec } from './test-world';

export type PolicyGroup = 'serial' | 'optimistic' | 'batching' | 'lanes' | 'flakes';

export interface Policy {
  group: PolicyGroup;
  /** Unique, short, used to cross-reference rows in the targets. */
  id: string;
  label: string;
  config: QueueConfigPatch;
  p: number;
  f: number;
  /** The flaky-test world (test-world.ts); absent: a run flakes as a whole (world.ts). */
  tests?: TestWorldSpec;
  lanes: number;
  /** PRs kept waiting in the saturation run (enough that the policy never runs dry). */
  backlog: number;
  /** Analytic resolved/h, or null when the bound is another row's measurement. */
  bound: number | null;
  boundNote: string;
  /** Whether the targets judge this row (extra rows only illustrate a trade-off). */
  judged: boolean;
  /** The row measuring the same policy before the speculation threshold existed (same seeds). */
  before?: string;
}

export const CI_MINUTES = 30;

const SKIP = 'bisection_skip_redundant_tests' as const;

/**
 * A batching row with concurrency > 1 is measured twice: with the engine's default speculation
 * threshold (the row the targets judge) and without one, as every queue behaved before it existed.
 */
function withBefore(policy: Policy): Policy[] {
  const before: Policy = {
    ...policy,
    id: `${policy.id}-before`,
    label: `${policy.label}, no threshold`,
    config: { ...policy.config, speculationThreshold: 0 },
    judged: false,
  };
  return [{ ...policy, before: before.id }, before];
}

export function policies(): Policy[] {
  const out: Policy[] = [];
  for (const p of [0.02, 0.05, 0.1]) {
    out.push({
      group: 'serial',
      id: `serial-p${p}`,
      label: 'serial (C=1)',
      config: { concurrency: 1 },
      p,
      f: 0,
      lanes: 1,
      backlog: 20,
      bound: serialBound(CI_MINUTES),
      boundNote: '1/T',
      judged: true,
    });
  }
  for (const c of [4, 10, 30]) {
    for (const p of [0.02, 0.05, 0.1]) {
      out.push({
        group: 'optimistic',
        id: `optimistic-c${c}-p${p}`,
        label: `optimistic C=${c}`,
        config: { concurrency: c },
        p,
        f: 0,
        lanes: 1,
        backlog: 3 * c + 20,
        bound: optimisticBound(c, p, CI_MINUTES),
        boundNote: '(1-(1-p)^C)/(pT)',
        judged: true,
      });
    }
  }
  for (const b of [4, 8]) {
    for (const c of [1, 4]) {
      const policy: Policy = {
        group: 'batching',
        id: `batch-b${b}-c${c}`,
        label: `batching B=${b} C=${c}`,
        config: {
          batch: true,
          batchingMinSize: b,
          concurrency: c,
          bisectionConcurrency: c,
          optimizationMode: SKIP,
        },
        p: 0.05,
        f: 0,
        lanes: 1,
        backlog: 3 * b * c + 20,
        // Bisection runs beside the line on slots of its own even with C = 1, so the corrected
        // ceiling of §5.3 applies to every batching row (the serial-batch formula assumed the line
        // waited for the bisection).
        bound: pipelinedBatchCeiling(b, c, 0.05, CI_MINUTES),
        boundNote: "B(1-(1-P')^C)/(P_B T), corrected §5.3",
        judged: true,
      };
      // With C = 1 nothing is ever stacked, so the threshold cannot change anything there.
      out.push(...(c === 1 ? [policy] : withBefore(policy)));
    }
  }
  const oneSlot: Policy = {
    group: 'batching',
    id: 'batch-b8-c4-bisect1',
    label: 'batching B=8 C=4, 1 bisection slot',
    config: {
      batch: true,
      batchingMinSize: 8,
      concurrency: 4,
      bisectionConcurrency: 1,
      optimizationMode: SKIP,
    },
    p: 0.05,
    f: 0,
    lanes: 1,
    backlog: 116,
    bound: pipelinedBatchCeiling(8, 4, 0.05, CI_MINUTES),
    boundNote: "B(1-(1-P')^C)/(P_B T), corrected §5.3",
    judged: false,
  };
  out.push(...withBefore(oneSlot));
  for (const lanes of [1, 10]) {
    out.push({
      group: 'lanes',
      id: `lanes-${lanes}`,
      label: `parallel, ${lanes} lane${lanes > 1 ? 's' : ''} C=${lanes}`,
      config: { mode: 'parallel', concurrency: lanes },
      p: 0.05,
      f: 0,
      lanes,
      backlog: 20 * lanes,
      bound: lanes * serialBound(CI_MINUTES),
      boundNote: `${lanes} x 1/T`,
      judged: true,
    });
  }
  const antiFlake: QueueConfigPatch = {
    concurrency: 10,
    pendingFailureDepth: 1,
    canOptimisticallyMerge: true,
  };
  for (const f of FLAKE_RATES) {
    out.push({
      group: 'flakes',
      id: `flakes-f${f}`,
      label: 'C=10, depth 1, optimistic',
      config: antiFlake,
      p: 0.05,
      f,
      lanes: 1,
      backlog: 50,
      bound: optimisticBound(10, 0.05, CI_MINUTES),
      boundNote: '(1-(1-p)^C)/(pT), f=0',
      judged: true,
    });
  }
  out.push(
    ...flakyTestRows(
      '',
      out.find((x) => x.id === 'flakes-f0')!,
      FLAKE_RATES,
    ),
  );
  // Test-level bisection acts only on batches: the B=8 C=4 batching row at f = 5%, in both worlds.
  const b8c4 = out.find((x) => x.id === 'batch-b8-c4')!;
  const batched: Policy = {
    group: 'flakes',
    id: 'flakes-batch-f0.05',
    label: b8c4.label,
    config: b8c4.config,
    p: b8c4.p,
    f: 0.05,
    lanes: 1,
    backlog: b8c4.backlog,
    bound: b8c4.bound,
    boundNote: b8c4.boundNote,
    judged: false,
  };
  out.push(batched, ...flakyTestRows('batch-', batched, [0.05]));
  out.push({
    group: 'flakes',
    id: 'flakes-f0.05-trunk-default',
    label: 'C=10, depth 0, no optimistic',
    config: { concurrency: 10 },
    p: 0.05,
    f: 0.05,
    lanes: 1,
    backlog: 50,
    bound: optimisticBound(10, 0.05, CI_MINUTES),
    boundNote: '(1-(1-p)^C)/(pT), f=0',
    judged: false,
  });
  return out;
}

/** Whole-suite flake probabilities of the flake rows (issue 28: f = 0, 2, 5, 10% per run). */
export const FLAKE_RATES = [0, 0.02, 0.05, 0.1] as const;

/**
 * The flaky-test world's repository: 2,000 tests, 5 of them flaky, a bad PR breaking 1 to 3; no
 * flaky test known before the first run (each is learnt at its first flake, test-world.ts).
 */
export const FLAKY_TEST_WORLD: Omit<TestWorldSpec, 'report'> = {
  tests: 2000,
  flaky: 5,
  maxBrokenPerBadPr: 3,
  knownAtStart: 0,
};

/**
 * Issue 28's rows: the per-run row `base` (`flakes-<prefix>f*`, the baseline, same seeds) again in the
 * flaky-test world, as today's engine runs it (no failed tests reported, so no test-level verdict;
 * flakyRetries 0), `flakes-<prefix>tests-today-f*`, and with test-level verdicts (flakyRetries 1,
 * failed tests reported: retries of known-flaky failures, bisection by the batch's failed tests),
 * `flakes-<prefix>tests-f*`.
 */
function flakyTestRows(prefix: string, base: Policy, rates: readonly number[]): Policy[] {
  return rates.flatMap((f): Policy[] => {
    const row = (id: string, label: string, flakyRetries: number, report: boolean): Policy => ({
      group: 'flakes',
      id,
      label,
      config: { ...base.config, flakyRetries },
      p: 0.05,
      f,
      tests: { ...FLAKY_TEST_WORLD, report },
      lanes: 1,
      backlog: base.backlog,
      bound: base.bound,
      boundNote: base.boundNote,
      judged: false,
    });
    return [
      row(`flakes-${prefix}tests-today-f${f}`, 'same, test world, today (no test verdicts)', 0, false),
      row(`flakes-${prefix}tests-f${f}`, 'same, test world, flakyRetries 1 + test bisection', 1, true),
    ];
  });
}
