/**
 * The summary tables of a chaos run (markdown, so they paste into docs/reliability.md as they are):
 * the safety checks first, then every fault with its recovery time, then what happened to the PRs.
 * `failedChecks` is what decides the exit code: any safety number that is not 0.
 */
import { table } from '../../scripts/lib/markdown-table';
import { SAFETY_ROWS } from './checks';
import type { ChaosReport } from './scenario';

const list = (items: (number | string)[]) =>
  items.length === 0 ? '' : items.map((i) => (typeof i === 'number' ? `#${i}` : i.slice(0, 12))).join(', ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function failedChecks(report: ChaosReport): string[] {
  return SAFETY_ROWS.filter(([key]) => report.safety[key].length > 0).map(([, label]) => label);
}

export function formatReport(report: ChaosReport, title: string): string {
  const safety = table(
    ['safety check', 'count', 'result', 'which'],
    SAFETY_ROWS.map(([key, label]) => {
      const found = report.safety[key];
      return [label, String(found.length), found.length === 0 ? 'PASS' : 'FAIL', list(found)];
    }),
  );
  const recoveries = report.faults.map((f) => f.recoveryMs).filter((ms): ms is number => ms !== null);
  const faults = table(
    ['fault', 'at', 'down for', 'component back after', 'answering again after'],
    report.faults.map((f, i) => [
      `${i + 1}. ${f.kind}`,
      seconds(f.at),
      f.kind.startsWith('kill') ? `${f.downMs} ms` : '(restart)',
      seconds(f.repairedAt - f.injectedAt),
      f.recoveryMs === null ? 'never' : seconds(f.recoveryMs),
    ]),
  );
  const o = report.outcomes;
  const run = table(
    ['measure', 'value'],
    [
      ['PRs accepted (answered 200 or seen)', String(report.accepted)],
      ['merged / failed / cancelled', `${o.merged} / ${o.failed} / ${o.cancelled}`],
      [
        'good PRs not merged (cost of the faults)',
        `${o.goodNotMerged.length} ${list(o.goodNotMerged)}`.trim(),
      ],
      [
        'conflicting PRs withdrawn by their author',
        `${report.withdrawn.length} ${list(report.withdrawn)}`.trim(),
      ],
      ['submits never answered 200', `${report.notAccepted.length} ${list(report.notAccepted)}`.trim()],
      ['target branch moves / PRs per move', `${o.landings} / ${o.prsPerLanding.toFixed(2)}`],
      [
        'time to recover, worst / mean of faults',
        recoveries.length === 0
          ? '—'
          : `${seconds(Math.max(...recoveries))} / ${seconds(recoveries.reduce((a, b) => a + b, 0) / recoveries.length)}`,
      ],
      ['longest time without an answer', seconds(report.longestOutageMs)],
      ['from the last repair to every PR settled', seconds(report.drainMs)],
      ['whole run', seconds(report.totalMs)],
      [
        'crashes besides the planned kills (worker / API / executor)',
        `${report.crashes.worker} / ${report.crashes.api} / ${report.crashes.executor}`,
      ],
    ],
  );
  const diagnostics =
    report.diagnostics.length > 0 ? ['', '#### PRs left open', '', '```', ...report.diagnostics, '```'] : [];
  return [`### ${title}`, '', safety, '', faults, '', run, ...diagnostics, ''].join('\n');
}
