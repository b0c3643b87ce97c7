/**
 * The safety checks of a chaos run, each judged from evidence railyard does not write itself where it
 * can be: git for what landed, the test command's ledger for what was tested, the API for the records.
 *
 * - lost: a PR the API accepted (or showed a record of) that now has no record.
 * - merged twice: a PR with more than one merge commit on the target's first-parent line.
 * - untested commits: a commit the target branch pointed to (its ref log) whose tree no passing run
 *   of the test command had tested.
 * - not terminal: a PR whose record is not merged, failed or cancelled once the run settled.
 * - bad merged, merged but not on the target: two cross-checks of the same invariants from the other
 *   side (a PR meant to fail reached the target; a record says merged but git has no merge).
 * - secrets in logs: a log file of any process of the run that holds the API key.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SubmittedPullRequest } from '../../api/schemas/merge-queue';
import type { GitWorld } from '../../scripts/lib/git-world';
import { isTerminal } from '../../engine';
import type { PlannedPr } from './workload';

export interface PrOutcome {
  pr: PlannedPr;
  /** The API answered 200 to a submit, or a record was seen during the run. */
  accepted: boolean;
  record: SubmittedPullRequest | null;
}

export interface SafetyReport {
  lost: number[];
  mergedTwice: number[];
  untestedCommits: string[];
  notTerminal: number[];
  badMerged: number[];
  mergedNotOnTarget: number[];
  secretsInLogs: string[];
}

export const SAFETY_ROWS: [keyof SafetyReport, string][] = [
  ['lost', 'PRs lost'],
  ['mergedTwice', 'PRs merged twice'],
  ['untestedCommits', 'commits on the target whose tree was never tested'],
  ['notTerminal', 'PRs not in a terminal state after recovery'],
  ['badMerged', 'bad PRs merged'],
  ['mergedNotOnTarget', 'PRs recorded merged but not on the target'],
  ['secretsInLogs', 'log files holding the API key'],
];

/** Merge commits per PR number on the first-parent line of main. */
export function mergesOnTarget(world: GitWorld): Map<number, number> {
  const counts = new Map<number, number>();
  for (const subject of world.firstParentSubjects()) {
    const m = /^Merge pull request #(\d+)\b/.exec(subject);
    if (m) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
  }
  return counts;
}

/** Trees of every commit the test command passed, from its ledger. */
export function passedTrees(world: GitWorld, ledger: string): Set<string> {
  const trees = new Set<string>();
  for (const name of fs.readdirSync(ledger))
    if (name.startsWith('passed-')) trees.add(world.treeOf(name.slice('passed-'.length)));
  return trees;
}

/** Names of the files in `dir` that contain any of `secrets`. */
export function filesHolding(dir: string, secrets: string[]): string[] {
  return fs.readdirSync(dir).filter((name) => {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    return secrets.some((secret) => text.includes(secret));
  });
}

export function checkSafety(
  world: GitWorld,
  ledger: string,
  outcomes: PrOutcome[],
  logs: { dir: string; secrets: string[] },
): SafetyReport {
  const merges = mergesOnTarget(world);
  const tested = passedTrees(world, ledger);
  // The first entry is the initial commit the run started from.
  const positions = [...new Set(world.refHistory().slice(1))];
  return {
    lost: outcomes.filter((o) => o.accepted && o.record === null).map((o) => o.pr.number),
    mergedTwice: [...merges].filter(([, n]) => n > 1).map(([pr]) => pr),
    untestedCommits: positions.filter((sha) => !tested.has(world.treeOf(sha))),
    notTerminal: outcomes
      .filter((o) => o.record !== null && !isTerminal(o.record.state))
      .map((o) => o.pr.number),
    badMerged: outcomes.filter((o) => o.pr.kind === 'bad' && merges.has(o.pr.number)).map((o) => o.pr.number),
    mergedNotOnTarget: outcomes
      .filter((o) => o.record?.state === 'merged' && !merges.has(o.pr.number))
      .map((o) => o.pr.number),
    secretsInLogs: filesHolding(logs.dir, logs.secrets),
  };
}

export interface OutcomeCounts {
  merged: number;
  failed: number;
  cancelled: number;
  goodNotMerged: number[];
  landings: number;
  prsPerLanding: number;
}

/** What happened to the PRs, for the report (not safety: a good PR failed by a fault is a cost). */
export function countOutcomes(world: GitWorld, outcomes: PrOutcome[]): OutcomeCounts {
  const state = (s: string) => outcomes.filter((o) => o.record?.state === s).length;
  const merged = state('merged');
  const landings = new Set(world.refHistory().slice(1)).size;
  return {
    merged,
    failed: state('failed'),
    cancelled: state('cancelled'),
    goodNotMerged: outcomes
      .filter((o) => o.pr.kind === 'good' && o.record?.state !== 'merged')
      .map((o) => o.pr.number),
    landings,
    prsPerLanding: landings > 0 ? merged / landings : 0,
  };
}
