/**
 * createFlakyStore(pool, options): the flaky-test service over PostgreSQL, as one object the HTTP
 * routes, the merge queue's runner and the activities call. It composes the layers below it and is
 * the only module that sees all of them: ingestion (ingest/, which writes through store/), the reads
 * and admin changes of store/, and re-evaluation. Layering: ingest/ may import store/, store/ never
 * imports ingest/, and neither imports this file.
 *
 * Every call is scoped to an organisation (a repository is found by organisation + key, a test by
 * repository + id), so one organisation's key can never reach another's rows. The clock is a
 * dependency: ingest times, rate windows and re-evaluation all read `now()`, which the benchmark
 * replaces with a simulated one.
 */
import { type Pool } from '../stores/db';
import { type StatusEvidence, type TestStatus } from './classification';
import type { RepositoryKey } from '../contract';
import { type FoldMode, ingestUpload } from './ingest/ingest';
import { type JudgeInput, type JudgeResult, judgeJunitFiles } from './ingest/judge';
import { type CommitFailure, failedTestsOfCommit, repositoryHasUploads } from './store/commit-failures';
import { type UploadInput, type UploadOutcome } from './ingest/types';
import { type OutboxSink } from './store/event-outbox';
import { type JsonPage } from './store/keyset';
import {
  type FailingKey,
  type FailingWindow,
  type IdKey,
  listFailingTests,
  listQuarantinedTests,
  listUnhealthyTests,
} from './store/lists';
import { checkQuarantine, type QuarantineCheck, quarantinedTestIds } from './store/quarantine-check';
import { type QuarantineHistoryEntry, quarantineHistory } from './store/quarantine-lifecycle';
import {
  listRepositoryPage,
  type ReevaluationOptions,
  type ReevaluationSummary,
  reevaluateAll,
  reevaluateRepositories,
} from './store/reevaluate';
import {
  findRepository,
  type RepositoryRecord,
  type SettingsChange,
  updateRepositorySettings,
} from './store/repositories';
import { type RepositoryScope } from './store/repository-scope';
import {
  findTestPk,
  findTestPkInOrganisation,
  linkTicket,
  type OverrideChange,
  setQuarantineOverride,
  type TicketLink,
  testsForTicket,
} from './store/test-case-admin';
import { loadStatusEvidence } from './store/status-evidence';
import { testDetailsJson } from './store/test-case-json';
import { loadTestCases } from './store/test-case-reads';
import { listRepositoryTests, type TestListPage, type TestListQuery } from './store/test-list';
import { type TestCaseRecord } from './test-case-record';
import { type WireLinks } from './test-case-wire';
import { createTestIdCache } from './test-ids';

export type { FailingKey, IdKey } from './store/lists';
export type { JsonPage, KeysetPosition } from './store/keyset';
export type { RepositoryScope } from './store/repository-scope';
export type { RepositoryRecord, SettingsChange } from './store/repositories';
export type { TestCaseRecord, CommonFailure } from './test-case-record';
export type { QuarantineAnswer, QuarantineCheck } from './store/quarantine-check';
export type { RepositoryFailure, ReevaluationSummary } from './store/reevaluate';
export type { TicketLink } from './store/test-case-admin';
export type { QuarantineHistoryEntry } from './store/quarantine-lifecycle';
export type { ListedTest, TestListPage, TestListQuery, TestListSort } from './store/test-list';
export type { StatusEvidence } from './classification';
export type { FoldMode } from './ingest/ingest';
export type { CommitFailure } from './store/commit-failures';

export interface FlakyStoreOptions {
  readonly now?: () => Date;
  /**
   * Gets the test_case.* webhook outbox rows each change wrote, after its commit (events.ts);
   * without it the rows wait in the outbox for a drain.
   */
  readonly events?: { readonly published: OutboxSink };
  /**
   * When uploads are folded into rollups and classification (ingest/ingest.ts): `inline` (default)
   * before `ingest` answers, for tests and single-process tools; the API server acknowledges first
   * and folds `async` in its fold loop (flaky/fold/loop.ts, ADR 0018). judgeJunitFiles always folds
   * inline: its verdicts need the classification.
   */
  readonly fold?: FoldMode;
}

export interface FlakyStore {
  readonly now: () => Date;
  ingest(input: UploadInput): Promise<UploadOutcome>;
  judgeJunitFiles(input: JudgeInput): Promise<JudgeResult>;
  /**
   * The failed tests CI uploaded for a commit of the organisation's repository (store/commit-failures.ts),
   * at most `maxRows` failed results read; null when the repository or any upload of the commit is missing.
   */
  failedTestsOfCommit(
    organisationId: string,
    key: RepositoryKey,
    sha: string,
    maxRows: number,
    targetBranch?: string,
  ): Promise<{ uploads: number; failed: CommitFailure[] } | null>;
  /** Whether the organisation's repository ever received an upload (false: no such repository). */
  hasUploads(organisationId: string, key: RepositoryKey): Promise<boolean>;
  findRepository(organisationId: string, key: RepositoryKey): Promise<RepositoryRecord | null>;
  updateSettings(
    organisationId: string,
    key: RepositoryKey,
    change: SettingsChange,
    actor: string,
  ): Promise<RepositoryRecord>;
  /**
   * The list pages find the repository themselves (one statement each, store/lists.ts) and answer their
   * items as JSON text; null when the organisation has no such repository.
   */
  listFailingTests(
    scope: RepositoryScope,
    window: FailingWindow,
    size: number,
    after: FailingKey | null,
    links: WireLinks,
  ): Promise<JsonPage<FailingKey> | null>;
  listUnhealthyTests(
    scope: RepositoryScope,
    status: Exclude<TestStatus, 'healthy'>,
    size: number,
    after: IdKey | null,
    links: WireLinks,
  ): Promise<JsonPage<IdKey> | null>;
  listQuarantinedTests(
    scope: RepositoryScope,
    size: number,
    after: IdKey | null,
  ): Promise<JsonPage<IdKey> | null>;
  getTest(repository: RepositoryRecord, id: string): Promise<TestCaseRecord | null>;
  /**
   * get-test-details as the TestCase object's JSON text, in one statement that also finds the
   * repository (store/test-case-json.ts); null without the repository, `test: null` without the test.
   */
  getTestJson(
    scope: RepositoryScope,
    id: string,
    links: WireLinks,
  ): Promise<{ readonly test: string | null } | null>;
  /** A test by id alone, within the organisation (the GET page that html_url points at). */
  getTestInOrganisation(organisationId: string, id: string): Promise<TestCaseRecord | null>;
  setQuarantineOverride(repository: RepositoryRecord, id: string, change: OverrideChange): Promise<boolean>;
  linkTicket(repository: RepositoryRecord, id: string, ticket: string): Promise<boolean>;
  testsForTicket(organisationId: string, ticket: string): Promise<TicketLink[]>;
  checkQuarantine(repository: RepositoryRecord, failedTestIds: readonly string[]): Promise<QuarantineCheck>;
  /** The ids of every test of the repository quarantined now. */
  quarantinedTestIds(repository: RepositoryRecord): Promise<string[]>;
  /** A test's (by its key, from a record) latest override changes and releases, newest first. */
  quarantineHistory(testPk: string): Promise<QuarantineHistoryEntry[]>;
  /** Every test of the repository, searched, filtered, sorted and paged (store/test-list.ts). */
  listRepositoryTests(repository: RepositoryRecord, query: TestListQuery): Promise<TestListPage>;
  /** What the test (by its key, from a record of this repository) is classified from, read now. */
  statusEvidence(repository: RepositoryRecord, testPk: string): Promise<StatusEvidence>;
  /** The whole sweep in one call (tests, tools); the schedule goes page by page (ADR 0020). */
  reevaluate(options?: ReevaluationOptions): Promise<ReevaluationSummary>;
  /** The next `limit` repository keys after `after` (null: from the first), in key order. */
  listRepositoryPage(after: string | null, limit: number): Promise<string[]>;
  /** The sweep of these repositories only, each isolated from the others. */
  reevaluateRepositories(pks: readonly string[], options?: ReevaluationOptions): Promise<ReevaluationSummary>;
}

export function createFlakyStore(pool: Pool, options: FlakyStoreOptions = {}): FlakyStore {
  const now = options.now ?? (() => new Date());
  const sink = options.events?.published;
  // Test ids of recent uploads' tests: CI uploads the same tests again and again.
  const ids = createTestIdCache();
  const record = async (pk: string | null) =>
    pk === null ? null : ((await loadTestCases(pool, [pk], now()))[0] ?? null);
  return {
    now,
    ingest: (input) =>
      ingestUpload(pool, input, now(), {
        ids,
        ...(sink === undefined ? {} : { sink }),
        ...(options.fold === undefined ? {} : { fold: options.fold }),
      }),
    judgeJunitFiles: (input) => judgeJunitFiles(pool, input, now(), sink),
    failedTestsOfCommit: async (organisationId, key, sha, maxRows, targetBranch) => {
      const repository = await findRepository(pool, organisationId, key);
      return repository === null
        ? null
        : failedTestsOfCommit(pool, repository, sha, now(), maxRows, targetBranch);
    },
    hasUploads: async (organisationId, key) => {
      const repository = await findRepository(pool, organisationId, key);
      return repository !== null && repositoryHasUploads(pool, repository);
    },
    findRepository: (organisationId, key) => findRepository(pool, organisationId, key),
    updateSettings: (organisationId, key, change, actor) =>
      updateRepositorySettings(pool, organisationId, key, change, actor, now()),
    listFailingTests: (scope, window, size, after, links) =>
      listFailingTests(pool, scope, window, size, after, links, now()),
    listUnhealthyTests: (scope, status, size, after, links) =>
      listUnhealthyTests(pool, scope, status, size, after, links, now()),
    listQuarantinedTests: (scope, size, after) => listQuarantinedTests(pool, scope, size, after, now()),
    getTest: async (repository, id) => record(await findTestPk(pool, repository.pk, id)),
    getTestJson: (scope, id, links) => testDetailsJson(pool, scope, id, links, now()),
    getTestInOrganisation: async (organisationId, id) =>
      record(await findTestPkInOrganisation(pool, organisationId, id)),
    setQuarantineOverride: (repository, id, change) =>
      setQuarantineOverride(pool, repository.pk, id, change, now(), sink),
    linkTicket: (repository, id, ticket) => linkTicket(pool, repository.pk, id, ticket, now()),
    testsForTicket: (organisationId, ticket) => testsForTicket(pool, organisationId, ticket),
    checkQuarantine: (repository, failedTestIds) => checkQuarantine(pool, repository, failedTestIds, now()),
    quarantinedTestIds: (repository) => quarantinedTestIds(pool, repository, now()),
    quarantineHistory: (testPk) => quarantineHistory(pool, testPk),
    listRepositoryTests: (repository, query) => listRepositoryTests(pool, repository.pk, query, now()),
    statusEvidence: (repository, testPk) => loadStatusEvidence(pool, testPk, repository.params, now()),
    reevaluate: (reevaluation) =>
      reevaluateAll(pool, now(), sink === undefined ? reevaluation : { onEvents: sink, ...reevaluation }),
    listRepositoryPage: (after, limit) => listRepositoryPage(pool, after, limit),
    reevaluateRepositories: (pks, reevaluation) =>
      reevaluateRepositories(
        pool,
        pks,
        now(),
        sink === undefined ? reevaluation : { onEvents: sink, ...reevaluation },
      ),
  };
}
