/**
 * A PR's page: the sentence saying why it is where it is (the record's `reasonText`, else its last
 * transition's, both from contract/pr-reasons.ts), the run that decided it, its test runs named in
 * words with a link to each run's log that exists, its timeline with the reason of every transition
 * in words (the event log, newest first, across its submissions), links to its workflow in the
 * Temporal Web UI and to the PR on its host, and the whole record with its codes.
 *
 * Rule: no link to something that does not exist. A run is linked to its log only when the log is
 * kept (test_run_logs); a run that never started (its test branch could not be built) shows why
 * instead, the conflict's PR and files when it was one.
 *
 * The record is rendered without depending on field names beyond Trunk's: fields that explain the
 * state (a key with reason, sentence, explanation or message) are shown as "why", fields holding a URL
 * (a key ending in Url or naming a log) become links, and the remaining plain fields are listed. So a
 * record that gains fields shows them without a change here. The live part refreshes until the PR
 * has left the queue.
 */
import type { FastifyInstance } from 'fastify';
import {
  detailedClause,
  explainState,
  prWorkflowId,
  testRunName,
  type RepositoryKey,
} from '../../../contract';
import type { SubmittedPullRequest } from '../../schemas/merge-queue';
import type { LoggedTransition } from '../store/reads';
import { notFound } from '../../errors';
import type { UiRouteDeps } from './deps';
import { parse, PrQuery, QueueQuery, queueQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';
import { dashboardHref, logHref } from './test-run-log';

const EXPLAINS = /reason|sentence|explanation|message/i;
const LINKISH = /(url|log|href|link)$/i;
const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
/** Items of a list in the record that are shown (test runs: one per attempt). */
const MAX_LISTED = 20;

export interface RecordView {
  readonly why: { key: string; text: string }[];
  readonly links: { key: string; href: string }[];
  readonly fields: { key: string; value: string }[];
}

const isHref = (v: string) => /^https?:\/\//i.test(v) || (v.startsWith('/') && !v.startsWith('//'));

/**
 * Splits a record (any JSON object) into explanations, links and plain fields: top-level fields, the
 * fields of nested objects, and the fields of objects in lists (labelled with their id when they have
 * one, as `testRuns <id> logUrl`). Links to the API's run logs become the dashboard's, opened from
 * PR `pr` when given (`?pr=`).
 */
export function viewOfRecord(record: object, pr?: number): RecordView {
  const view: RecordView = { why: [], links: [], fields: [] };
  const visit = (key: string, value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (LINKISH.test(key) && isHref(value)) view.links.push({ key, href: dashboardHref(value, pr) });
      else if (EXPLAINS.test(key) && value.trim() !== '') view.why.push({ key, text: value });
      else view.fields.push({ key, value });
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      view.fields.push({ key, value: String(value) });
    } else if (Array.isArray(value)) {
      if (value.every((v) => typeof v !== 'object' || v === null))
        view.fields.push({ key, value: value.join(', ') });
      else if (depth === 0)
        value.slice(0, MAX_LISTED).forEach((item: unknown, i) => {
          if (item === null || typeof item !== 'object') return;
          const id = Object.entries(item).find(([k, v]) => /id$/i.test(k) && typeof v === 'string')?.[1] as
            string | undefined;
          for (const [k, v] of Object.entries(item)) visit(`${key} ${id ?? i + 1} ${k}`, v, depth + 1);
        });
    } else if (value !== null && typeof value === 'object' && depth === 0) {
      for (const [k, v] of Object.entries(value)) visit(`${key}.${k}`, v, depth + 1);
    }
  };
  for (const [k, v] of Object.entries(record)) visit(k, v, 0);
  return view;
}

/** A test run as the PR page shows it: named in words, with its log or why there is none. */
export interface RunOnPage {
  readonly id: string;
  readonly name: string;
  readonly at: Date;
  /** The dashboard's address of its log; null when no log is kept. */
  readonly log: string | null;
  /** Why there is no log (null when there is one). */
  readonly noLog: string | null;
}

const NEVER_STARTED = /^START_TEST_RUN_/;

/**
 * The PR's runs, newest first, from its transitions: each named by what it tested, linked to its
 * log when `logged` has it, else saying why not (it never started and why, it is still running, or
 * no log is kept for it). Each log link carries `?pr=<pr>`, the PR whose page lists it, so the log
 * names that PR first (a batch run's branch is named after its first PR, not this one).
 */
export function runsOnPage(
  timeline: readonly LoggedTransition[],
  logged: ReadonlySet<string>,
  record: Pick<SubmittedPullRequest, 'reasonDetail' | 'decidedByTestRun'> | null,
  targetBranch: string,
  pr: number,
): RunOnPage[] {
  const byRun = new Map<string, LoggedTransition[]>();
  for (const t of timeline) if (t.testRunId) byRun.set(t.testRunId, [...(byRun.get(t.testRunId) ?? []), t]);
  const latest = timeline[0];
  return [...byRun].map(([id, rows]) => {
    const first = rows.at(-1)!;
    const name = testRunName({ prs: first.batch, bisection: rows.some((r) => r.bisection) });
    const at = first.at;
    if (logged.has(id)) return { id, name, at, log: logHref(id, pr), noLog: null };
    const failedToStart = rows.find((r) => NEVER_STARTED.test(r.reason));
    let noLog: string;
    if (failedToStart) {
      const detail = record?.decidedByTestRun === id ? record.reasonDetail : undefined;
      // The detail (the conflict's PR and files) is the decided run's; another run says what it knows.
      noLog =
        detail?.kind === 'conflict'
          ? `it never started: ${detailedClause(failedToStart.reason, detail, targetBranch)}`
          : 'it never started: its test branch could not be built';
    } else if (latest?.testRunId === id && latest.to === 'testing')
      noLog = 'it is running; its log is kept when it ends';
    else noLog = "no log is kept for it (CI's statuses judged it, or it stopped before its command ran)";
    return { id, name, at, log: null, noLog };
  });
}

/** The sentence that leads the page: the record's own, else the last transition's. */
export function leadSentence(
  record: Pick<SubmittedPullRequest, 'reasonText'> | null,
  timeline: readonly LoggedTransition[],
  targetBranch: string,
): string | null {
  if (record?.reasonText) return record.reasonText;
  const last = timeline[0];
  return last ? explainState({ state: last.to, reason: last.reason, targetBranch }) : null;
}

/** The PR on its host; none for the local host, whose PRs are refs (refs/pull/<n>/head). */
export function hostPrUrl(repo: RepositoryKey, pr: number): string | null {
  if (repo.host === 'local') return null;
  return `https://${repo.host}/${repo.owner.split('/').map(encodeURIComponent).join('/')}/${encodeURIComponent(repo.name)}/pull/${pr}`;
}

export function pullRequestPages(deps: UiRouteDeps) {
  return (app: FastifyInstance): void => {
    app.get('/ui/pr', async (request, reply) => {
      const q = parse(QueueQuery, request.query, 'querystring');
      const { pr } = parse(PrQuery, request.query, 'querystring');
      await requireOwned(deps, request, q.repo);
      const org = sessionOf(request).organisation;
      const [record, timeline] = await Promise.all([
        deps.mergeQueue.getSubmittedPullRequest(org, {
          repo: q.repo,
          targetBranch: q.targetBranch,
          pr: { number: pr },
        }),
        deps.reads.prTimeline(org.id, q, pr),
      ]);
      if (record === null && timeline.length === 0)
        throw notFound(
          `Pull request #${pr} was never submitted to the merge queue of branch "${q.targetBranch}".`,
        );
      const workflowId = prWorkflowId(
        { organisationId: org.id, repo: q.repo, targetBranch: q.targetBranch },
        pr,
      );
      const temporal = deps.temporalUi
        ? `${deps.temporalUi.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(deps.temporalUi.namespace)}/workflows/${encodeURIComponent(workflowId)}`
        : null;
      const state = record?.state ?? timeline[0]?.to ?? 'unknown';
      const runIds = [...new Set(timeline.flatMap((t) => (t.testRunId ? [t.testRunId] : [])))];
      const logged = await deps.reads.loggedRuns(org.id, runIds);
      const runs = runsOnPage(timeline, logged, record, q.targetBranch, pr);
      const decidedId = record ? record.decidedByTestRun : (timeline[0]?.testRunId ?? null);
      const decided = runs.find((r) => r.id === decidedId) ?? null;
      return render(deps, request, reply, 'pull-request', {
        title: `#${pr} ${record?.prTitle ?? ''}`.trim(),
        q,
        qs: queueQs(q),
        prQs: queueQs(q, { pr: String(pr) }),
        pr,
        record,
        state,
        live: !TERMINAL.has(state),
        view: record ? viewOfRecord(record, pr) : null,
        lead: leadSentence(record, timeline, q.targetBranch),
        runs,
        decided,
        decidedWord: state === 'testing' ? 'Tested in' : 'Decided by',
        runName: (t: LoggedTransition) => testRunName({ prs: t.batch, bisection: t.bisection }),
        timeline,
        links: { temporal, host: hostPrUrl(q.repo, pr) },
      });
    });
  };
}
