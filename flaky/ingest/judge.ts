/**
 * judgeJunitFiles: what the merge queue's `command` runner asks of the flaky-test service. The JUnit
 * files a test run wrote are ingested as one upload whose id is the run id (so an activity retry
 * ingests nothing twice), and each test gets a verdict: its final status in this run and whether it
 * is quarantined now (after this run's results were folded and classified: the run's upload is folded
 * inline, like the CI check after an upload).
 *
 * `quarantinedRunPasses` is the rule for a run whose command failed: it passes when it had at least
 * one failed test, every failed test is quarantined, and every file could be read. A run that failed
 * without any failed test (a build error) or with an unreadable report is not rescued.
 */
import { type Pool } from '../../stores/db';
import type { RepositoryKey } from '../../contract';
import { JunitParseError, type ParsedJunitFile, parseJunitText } from '../junit';
import { type OutboxSink } from '../store/event-outbox';
import { lastPassesOnBranch } from '../store/last-pass';
import { checkQuarantine } from '../store/quarantine-check';
import { findRepository, organisationSlugOf } from '../store/repositories';
import { ingestPrepared } from './ingest';
import { prepareUpload, type PreparedTest } from './prepare';

export interface JudgeInput {
  readonly organisationId: string;
  readonly repo: RepositoryKey;
  readonly runId: string;
  readonly headSha: string;
  /** The test branch (`railyard-merge/pr-<n>/<runId>`); a merge-queue branch for classification. */
  readonly branchName?: string;
  /** The queue's target branch: a failed test's latest pass there is named (`passedOnTarget`). */
  readonly targetBranch?: string;
  readonly junitFiles: readonly { readonly path: string; readonly xml: string }[];
}

export interface TestVerdict {
  readonly testId: string;
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly quarantined: boolean;
  /**
   * A failed test known flaky: its status is `flaky` (after this run was folded) or it is quarantined.
   * Absent for every other test. The merge queue retries a failure only in such tests.
   */
  readonly flaky?: boolean;
  /**
   * A failed test's failure as one line (its last failed attempt's message, colours stripped, blanks
   * collapsed, at most 200 characters: fingerprint.ts's sample), for the run's log; absent otherwise.
   */
  readonly failure?: string;
  /**
   * A failed test's latest passing commit on `targetBranch` in this repository (store/last-pass.ts,
   * bounded), for "it passed on main at C"; absent when none is found or no target was given.
   */
  readonly passedOnTarget?: string;
}

export interface JudgeResult {
  readonly uploadCreated: boolean;
  readonly verdicts: readonly TestVerdict[];
  /** One sentence per JUnit file that could not be read (those files are left out). */
  readonly problems: readonly string[];
  readonly quarantinedRunPasses: boolean;
}

/** `sink` gets the outbox rows of the status changes this run caused, after the commit. */
export async function judgeJunitFiles(
  pool: Pool,
  input: JudgeInput,
  now: Date,
  sink?: OutboxSink,
): Promise<JudgeResult> {
  const files: ParsedJunitFile[] = [];
  const problems: string[] = [];
  for (const file of input.junitFiles) {
    try {
      files.push(await parseJunitText(file.xml, { fileName: file.path }));
    } catch (err) {
      if (!(err instanceof JunitParseError)) throw err;
      problems.push(err.message);
    }
  }
  const upload = {
    organisationId: input.organisationId,
    organisationSlug: await organisationSlugOf(pool, input.organisationId),
    repository: input.repo,
    metadata: {
      uploadId: input.runId,
      commitSha: input.headSha,
      branch: input.branchName ?? `railyard-merge/run/${input.runId}`,
      attempt: 1,
      variant: '',
    },
    files,
  };
  const prepared = prepareUpload(upload);
  // Always folded inline, whatever the store's mode: the verdicts are read after classification.
  const outcome = await ingestPrepared(pool, upload, prepared, now, {
    fold: { kind: 'inline' },
    ...(sink === undefined ? {} : { sink }),
  });
  const repository = await findRepository(pool, input.organisationId, input.repo);
  const failed = prepared.tests.filter((t) => t.final === 'fail');
  const check =
    repository === null || prepared.tests.length === 0
      ? { tests: [] }
      : await checkQuarantine(
          pool,
          repository,
          prepared.tests.map((t) => t.id),
          now,
        );
  const quarantined = new Set(check.tests.filter((t) => t.verdict.quarantined).map((t) => t.testId));
  const flaky = new Set(
    check.tests.filter((t) => t.verdict.quarantined || t.status === 'flaky').map((t) => t.testId),
  );
  // Where the run's failed tests last passed on the queue's target (quarantined ones are forgiven).
  const passes =
    repository !== null && input.targetBranch
      ? await lastPassesOnBranch(
          pool,
          repository,
          failed.filter((t) => !quarantined.has(t.id)).map((t) => t.id),
          input.targetBranch,
        )
      : new Map<string, string>();
  const verdicts = prepared.tests.map((test): TestVerdict => {
    const failure =
      test.final === 'fail' ? [...test.attempts].reverse().find((a) => a.failure)?.failure : undefined;
    return {
      testId: test.id,
      name: displayName(test),
      status: statusOf(test),
      quarantined: quarantined.has(test.id),
      ...(test.final === 'fail' && flaky.has(test.id) ? { flaky: true } : {}),
      ...(failure ? { failure: failure.sample } : {}),
      ...(test.final === 'fail' && passes.has(test.id) ? { passedOnTarget: passes.get(test.id)! } : {}),
    };
  });
  return {
    uploadCreated: outcome.created,
    verdicts,
    problems,
    quarantinedRunPasses:
      problems.length === 0 && failed.length > 0 && failed.every((test) => quarantined.has(test.id)),
  };
}

function statusOf(test: PreparedTest): TestVerdict['status'] {
  switch (test.final) {
    case 'pass':
      return 'passed';
    case 'fail':
      return 'failed';
    case 'skip':
      return 'skipped';
  }
}

/** `parent › classname › name`, without repeating a part (the suite is often the class). */
function displayName(test: PreparedTest): string {
  const parts = [test.parent, test.classname, test.name].filter((part) => part !== '');
  return parts.filter((part, i) => part !== parts[i - 1]).join(' › ');
}
