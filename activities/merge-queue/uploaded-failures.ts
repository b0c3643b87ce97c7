/**
 * readUploadedFailures (issue 28): the failed tests CI uploaded for a failed CI-judged run's test commit,
 * as the queue's engine takes a run's tests, so the test-level rules (flaky-only retry, a bisection
 * chunk's unrelated failure, the tests named on ejection) apply to runs judged by CI's statuses too.
 *
 * Rules:
 * - Only the queue's own organisation's repository is read (flaky/store/commit-failures.ts): the
 *   organisation comes from the queue's key, never from the upload.
 * - CI may report its failed status before its upload lands: while no upload of the commit exists the
 *   store is asked again every `pollMs` until `waitMs` (RAILYARD_CI_UPLOAD_WAIT_SECONDS) has passed;
 *   then the answer is `none` and the run-level rules decide, saying so in the reason.
 * - A repository that never received an upload (`uploadsEver`) is not waited for: CI there does not
 *   upload, and every failed run would otherwise wait out `waitMs` before its PRs hear of it. The answer
 *   is `not_uploading` at once and the run-level rules decide, as before issue 28. (A repository's
 *   very first upload racing its failed status is the one case this answers too early.)
 * - Bounded as an executor's report is (engine/failed-tests.ts): MAX_FAILED_TESTS_READ + 1 failed
 *   results read at most, so a longer list reaches the engine as incomplete and decides nothing.
 * Invariants: every test answered is `failed` and not `quarantined` (CI's own job applies quarantine;
 * the store says why); without a store (a worker without the flaky-test service) the answer is `none`
 * at once.
 */
import { MAX_FAILED_TESTS_READ } from '../../engine';
import type { RepositoryKey, TestCaseVerdict } from '../../contract';
import type { FlakyStore } from '../../flaky/service';
import { whileHeartbeating } from '../heartbeat';

export type UploadedFailures =
  | { kind: 'uploaded'; uploads: number; tests: TestCaseVerdict[] }
  | { kind: 'none'; waitedSeconds: number }
  | { kind: 'not_uploading' };

export interface UploadedFailuresDeps {
  read?: FlakyStore['failedTestsOfCommit'];
  /** Whether the repository ever received an upload; absent: always waited for. */
  uploadsEver?: FlakyStore['hasUploads'];
  /** How long to wait for CI's upload; default DEFAULT_CI_UPLOAD_WAIT_MS. */
  waitMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_CI_UPLOAD_WAIT_MS = 60_000;
const POLL_MS = 5_000;

export function createUploadedFailuresActivity(deps: UploadedFailuresDeps) {
  const waitMs = deps.waitMs ?? DEFAULT_CI_UPLOAD_WAIT_MS;
  const pollMs = deps.pollMs ?? POLL_MS;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return {
    readUploadedFailures: (input: {
      organisationId: string;
      repo: RepositoryKey;
      sha: string;
      /** The queue's target branch: where each failed test last passed is named (`passedOnTarget`). */
      targetBranch?: string;
    }): Promise<UploadedFailures> =>
      whileHeartbeating(async () => {
        const read = deps.read;
        if (!read) return { kind: 'none', waitedSeconds: 0 };
        if (deps.uploadsEver && !(await deps.uploadsEver(input.organisationId, input.repo)))
          return { kind: 'not_uploading' };
        const started = Date.now();
        for (;;) {
          const found = await read(
            input.organisationId,
            input.repo,
            input.sha,
            MAX_FAILED_TESTS_READ + 1,
            input.targetBranch,
          );
          if (found) {
            return {
              kind: 'uploaded',
              uploads: found.uploads,
              tests: found.failed.map(({ name, flaky, passedOnTarget }): TestCaseVerdict => ({
                name,
                status: 'failed',
                quarantined: false,
                ...(flaky ? { flaky: true } : {}),
                ...(passedOnTarget ? { passedOnTarget } : {}),
              })),
            };
          }
          const waited = Date.now() - started;
          // The wait as set, not as measured: a slow store makes the last read overshoot it (a loaded
          // run said 9 s for a 3 s wait), and the record's sentence names the queue's rule.
          if (waited >= waitMs) return { kind: 'none', waitedSeconds: Math.round(waitMs / 1000) };
          await sleep(Math.min(pollMs, waitMs - waited));
        }
      }, 5_000),
  };
}
