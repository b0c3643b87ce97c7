/**
 * What the chaos run merges: a seeded mix of pull requests and a test command that keeps its own
 * ledger of what it tested.
 *
 * - `good` PRs add a file of their own and pass.
 * - `bad` PRs also add a file under `bad/`; any tree holding one fails its test run.
 * - `conflict` PRs come in pairs that rewrite the same line of a shared file: whichever lands second
 *   no longer merges and must fail with a conflict, whatever else happens.
 *
 * The ledger is written by the test command itself, outside railyard: one file per commit whose run
 * passed (`passed-<sha>`) or failed. The checks trust it, not the queue's own account, to decide
 * whether a commit on the target branch was tested. A run killed halfway writes nothing.
 */
import path from 'node:path';
import type { PrSpec } from '../../scripts/lib/git-world';
import type { Rng } from '../simulate/rng';

export type PrKind = 'good' | 'bad' | 'conflict';

export interface PlannedPr extends PrSpec {
  kind: PrKind;
  /** Conflicting PRs: the pair they belong to (both are submitted at the same moment). */
  pair?: number;
}

export interface WorkloadOptions {
  prs: number;
  /** Share of bad PRs. */
  badRate: number;
  /** Share of PRs in conflicting pairs. */
  conflictRate: number;
  /** How long each test run takes. */
  testSeconds: number;
}

export function planPrs(rng: Rng, opts: WorkloadOptions): PlannedPr[] {
  const plan: PlannedPr[] = [];
  let pairs = 0;
  for (let n = 1; n <= opts.prs; n++) {
    const roll = rng.next();
    const own = { [`prs/pr-${n}.txt`]: `pull request ${n}\n` };
    if (roll < opts.badRate) {
      plan.push({
        number: n,
        kind: 'bad',
        title: `Bad PR ${n}`,
        files: { ...own, [`bad/pr-${n}.txt`]: 'x\n' },
      });
    } else if (roll < opts.badRate + opts.conflictRate && n < opts.prs) {
      // Two PRs in a row rewrite the same shared line, so exactly one of them can land.
      const pair = ++pairs;
      const file = `shared/conflict-${pair}.txt`;
      for (const m of [n, n + 1])
        plan.push({
          number: m,
          kind: 'conflict',
          pair,
          title: `Conflicting PR ${m}`,
          files: { [file]: `${m}\n` },
        });
      n++;
    } else {
      plan.push({ number: n, kind: 'good', title: `PR ${n}`, files: own });
    }
  }
  return plan;
}

/** Files of the target branch before the run: the queue config and the shared files pairs fight over. */
export function initialFiles(
  plan: PlannedPr[],
  ledger: string,
  opts: WorkloadOptions,
): Record<string, string> {
  const files: Record<string, string> = {
    '.railyard/merge-queue.json': JSON.stringify({
      version: 1,
      command: testCommand(ledger, opts.testSeconds),
    }),
    'README.md': 'chaos\n',
  };
  for (const pr of plan)
    for (const file of Object.keys(pr.files)) if (file.startsWith('shared/')) files[file] = 'base\n';
  return files;
}

/** Sleeps, then passes unless the tree holds a `bad/` file; records the tested sha either way. */
export function testCommand(ledger: string, seconds: number): string {
  const at = (name: string) => JSON.stringify(path.join(ledger, name));
  return [
    `sleep ${seconds}`,
    `if [ -d bad ]; then touch ${at('failed-')}"$RAILYARD_SHA"; exit 1; fi`,
    `touch ${at('passed-')}"$RAILYARD_SHA"`,
  ].join('; ');
}
