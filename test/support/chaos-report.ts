/**
 * What every chaos-harness story (test/e2e/chaos.test.ts, replicas.test.ts) asserts of its report
 * (bench/chaos): no failed check, no safety number above 0 (nothing lost, merged twice, untested,
 * left unfinished, bad merged, merged off its target, no secret in a log), every planned fault of
 * `kinds` injected and recovered from, and every good PR merged. On a failure the run's lines and
 * summary are printed first, so the cause is in the output.
 */
import { failedChecks, formatReport } from '../../bench/chaos/report';
import type { ChaosReport } from '../../bench/chaos/scenario';

export function expectSafeChaosRun(
  report: ChaosReport,
  run: { title: string; lines: readonly string[]; faults: readonly string[] },
): void {
  if (failedChecks(report).length > 0)
    console.log(`${run.lines.join('\n')}\n${formatReport(report, run.title)}`);
  expect(failedChecks(report)).toEqual([]);
  expect(report.safety).toEqual({
    lost: [],
    mergedTwice: [],
    untestedCommits: [],
    notTerminal: [],
    badMerged: [],
    mergedNotOnTarget: [],
    secretsInLogs: [],
  });
  expect(report.faults.map((f) => f.kind).sort()).toEqual([...run.faults].sort());
  for (const f of report.faults) expect(f.recoveryMs).not.toBeNull();
  expect(report.outcomes.goodNotMerged).toEqual([]);
}
