/**
 * QueueContext: the one thing the parts of the queue workflow share. A part (admission, enqueueing,
 * the command executor, the PR notifier, the not-ready recheck, the statuses verdict, the handlers)
 * may read the queue's key and its carried state, queue an event for the engine and run tracked
 * background work; nothing more. The drain loop (runtime.ts) implements it and hands it down, so the
 * parts never reach each other through the loop and no import of workflows/queue runs back to it.
 *
 * Invariant: every change the parts make to the queue goes through the carried state or an event;
 * what the engine decides comes back to them only through commands the drain loop routes.
 */
import type { EngineEvent } from '../../engine';
import type { QueueKey, RepositoryKey, StalledChecks, TestedOn } from '../../contract';
import type {
  BuildRunInput,
  BuildRunResult,
  LandInput,
  LandResult,
  PullRequestSnapshot,
} from '../../activities/merge-queue/types';
import type { Carried } from './carried';
import type { Keep } from './side-effect-calls';

export interface QueueContext {
  readonly key: QueueKey;
  /** Mutated in place and carried whole across continue-as-new (carried.ts). */
  readonly carried: Carried;
  /** Queues an event for the engine; answers its sequence number, in inbox order. */
  push(event: EngineEvent): number;
  /**
   * Runs `fn` as background work that continue-as-new waits for. A failure (an activity that
   * exhausted its retries) goes to `onError` and is logged; it never fails the workflow task.
   */
  track(fn: () => Promise<void>, onError?: (err: unknown) => void): void;
  /**
   * Tells the PR's record that its details changed between transitions (pr-notifier.ts `refresh`):
   * called by whoever changed a waiting PR's readiness.
   */
  refreshDetails(pr: number, testedOn?: TestedOn, stalledChecks?: StalledChecks | null): void;
  /**
   * Few signals arrive now (signal-rate.ts): short work may run as a local activity, inside the
   * workflow task that starts it, without Temporal failing that task for the signals it buffers.
   */
  readonly quiet: boolean;
  /** The read, build and landing activities, with the side effects due riding along (riding-git.ts). */
  readonly git: RidingGit;
}

/** The git steps the parts start through the context: each answers its git result alone (ADR 0028). */
export interface RidingGit {
  readPullRequest(input: {
    repo: RepositoryKey;
    targetBranch: string;
    pr: number;
  }): Promise<PullRequestSnapshot>;
  buildTestRun(input: BuildRunInput): Promise<BuildRunResult>;
  /** `keep`: effects due that wait for a later call instead of riding along (passed-with-landing.ts). */
  land(input: LandInput, keep?: Keep): Promise<LandResult>;
}
