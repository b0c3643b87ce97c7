/**
 * A PR's page: its record as getSubmittedPullRequest answers it, its timeline with the reason of every
 * transition (the event log, newest first, across its submissions), and links to its workflow in the
 * Temporal Web UI, to the PR on its host, and to whatever links the record carries (its run log).
 *
 * The record is rendered without depending on field names beyond Trunk's: fields that explain the
 * state (a key with reason, sentence, explanation or message) are shown as "why", fields holding a URL
 * (a key ending in Url or naming a log) become links, and the remaining plain fields are listed. So a
 * record that gains fields shows them without a change here. The live part refreshes until the PR
 * has left the queue.
 */
import type { FastifyInstance } from 'fastify';
import { prWorkflowId, type RepositoryKey } from '../../../contract';
import { notFound } from '../../errors';
import type { UiRouteDeps } from './deps';
import { parse, PrQuery, QueueQuery, queueQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';
import { dashboardHref } from './test-run-log';

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
 * one, as `testRuns <id> logUrl`). Links to the API's run logs become the dashboard's.
 */
export function viewOfRecord(record: object): RecordView {
  const view: RecordView = { why: [], links: [], fields: [] };
  const visit = (key: string, value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (LINKISH.test(key) && isHref(value)) view.links.push({ key, href: dashboardHref(value) });
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
      return render(deps, request, reply, 'pull-request', {
        title: `#${pr} ${record?.prTitle ?? ''}`.trim(),
        q,
        qs: queueQs(q),
        prQs: queueQs(q, { pr: String(pr) }),
        pr,
        record,
        state,
        live: !TERMINAL.has(state),
        view: record ? viewOfRecord(record) : null,
        timeline,
        links: { temporal, host: hostPrUrl(q.repo, pr) },
      });
    });
  };
}
