/**
 * The preflight (issue 28, "no silent stall"): what its workflow takes and answers, its id, and its
 * answer as one sentence. Before a queue is enabled or resumed, railyard pushes a throw-away test branch
 * (the queue's test-branch prefix, one commit on the target's tip), waits up to a bound for the queue's
 * required checks to *start* on it (engine/preflight.ts decides), says which did and which did not with
 * the likely cause, and deletes the branch.
 *
 * Invariants: one preflight per queue at a time (the workflow id is the queue's); every name that came
 * from CI is bounded (boundedNames) before it is kept or answered.
 */
import type { StallCause } from '../engine';
import { queueWorkflowId, type QueueKey } from './ids';

/** Signal: a commit status reported through the API (local host; reportTestStatus forwards it). */
export const PREFLIGHT_STATUS_SIGNAL = 'preflightStatus';

/** The preflight of one queue (a preflight started while one runs is that one). */
export function preflightWorkflowId(key: QueueKey): string {
  return `preflight/${queueWorkflowId(key).slice('queue/'.length)}`;
}

export interface PreflightWorkflowInput {
  key: QueueKey;
  /** The queue's requiredStatuses; [] = none named: the host's required checks, else its own command. */
  requiredStatuses: string[];
  /** The queue's test-branch prefix; null = the host's. */
  testBranchPrefix: string | null;
  /** How long to wait for the checks to start, from the push (bounded by the API). */
  waitMs: number;
  /** Between two reads of the host's checks. */
  pollMs: number;
  /**
   * The queue's draft-PR testing mode (createPrsForTestingBranches): the branch also gets a draft PR into
   * the target, closed with the branch, so CI that runs only on pull requests is seen. Absent: off.
   */
  draftPullRequest?: boolean;
}

export interface PreflightStatus {
  sha: string;
  context: string;
}

/** How callers start it by name (contract/workflow-types.ts: PREFLIGHT_WORKFLOW_TYPE). */
export type PreflightWorkflow = (input: PreflightWorkflowInput) => Promise<PreflightResult>;

/** The preflight branch's draft PR (draft-PR testing mode): its number and its page on the host. */
export interface PreflightDraftPullRequest {
  number: number;
  url: string;
}

/** What the preflight found. */
export type PreflightResult =
  | {
      kind: 'started';
      branch: string;
      sha: string;
      /** Draft-PR testing mode: the branch's draft PR (closed when the preflight ended). */
      draftPullRequest?: PreflightDraftPullRequest;
      required: string[];
      started: string[];
      /** From the push to the answer. */
      waitedMs: number;
    }
  | {
      kind: 'missing';
      branch: string;
      sha: string;
      draftPullRequest?: PreflightDraftPullRequest;
      required: string[];
      started: string[];
      missing: string[];
      cause: StallCause;
      /** Checks that did report and are not required (at most MAX_DETAIL_NAMES). */
      otherChecks: string[];
      waitedMs: number;
    }
  /** The queue runs its own test command (local host, no requiredStatuses): no CI check to wait for. */
  | { kind: 'no_checks'; detail: string }
  /** Nothing was pushed: no target branch, no required checks known, a repository not the queue's. */
  | { kind: 'problem'; detail: string };

/** The test-branch prefix of a preflight branch `<prefix>preflight/<id>` (git/preflight-branch.ts). */
export function preflightPrefixOf(branch: string): string {
  return /^(.*?)preflight\/[^/]+$/.exec(branch)?.[1] ?? branch;
}

const names = (list: readonly string[]) => list.map((c) => `\`${c}\``).join(', ');
/** "the test branch `x`", with its draft PR when it had one. */
const branchOf = (r: { branch: string; draftPullRequest?: PreflightDraftPullRequest }) =>
  `the test branch \`${r.branch}\`${r.draftPullRequest ? ` (its draft PR #${r.draftPullRequest.number}, ${r.draftPullRequest.url})` : ''}`;
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** The answer as one sentence: what started, what did not, the likely cause and what to change. */
export function preflightSentence(r: PreflightResult): string {
  switch (r.kind) {
    case 'started':
      return `Every required check (${names(r.required)}) started on ${branchOf(r)} within ${seconds(r.waitedMs)}: CI runs on the queue's test branches.`;
    case 'missing': {
      const prefix = preflightPrefixOf(r.branch);
      const which =
        r.missing.length === 1
          ? `Required check ${names(r.missing)} did`
          : `Required checks ${names(r.missing)} did`;
      const started = r.started.length > 0 ? ` (${names(r.started)} started)` : '';
      const cause =
        r.cause === 'nothing_reported'
          ? `no check at all reported on it, so most likely no CI workflow is triggered on the test-branch prefix \`${prefix}\` (GitHub Actions: \`on: push: branches: ['${prefix}**']\`)`
          : `CI reported other checks on it${r.otherChecks.length > 0 ? ` (${names(r.otherChecks)})` : ''}, so most likely the required check is not produced on branches (a job that runs only on pull requests, or a check named differently)`;
      return `${which} not start within ${seconds(r.waitedMs)} on ${branchOf(r)}${started}: ${cause}.`;
    }
    case 'no_checks':
    case 'problem':
      return r.detail;
  }
}
