/**
 * Reading the dashboard's query strings and forms with the API's own zod rules (repository names,
 * branch names, PR numbers), so a page accepts exactly what the API accepts. A problem is a 400 with
 * one sentence naming the field; a repository the organisation does not own is the API's 404.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest, notFound } from '../../errors';
import { describeIssue } from '../../validation-message';
import { PrNumber, RepoRef, TargetBranch } from '../../schemas/common';
import {
  asSentence,
  batchingModeWord,
  overrideWord,
  prStateWord,
  quarantineSettingWord,
  queueModeWord,
  queueStateWord,
  reasonClause,
  repositoryLabel,
  testStatusReasonText,
  testStatusWord,
  type RepositoryKey,
} from '../../../contract';
import type { QueueAddress } from '../../routes/merge-queue/service';
import type { UiRouteDeps } from './deps';
import { sessionOf } from './guard';

export function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'querystring' | 'body',
): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw badRequest(issue ? describeIssue(issue, where) : 'The request is invalid.');
}

export const RepoQuery = z
  .object({ host: z.unknown(), owner: z.unknown(), name: z.unknown() })
  .transform((q, ctx): RepositoryKey => {
    const parsed = RepoRef.safeParse({ host: q.host, owner: q.owner, name: q.name });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, code: 'custom', message: issue.message });
    return z.NEVER;
  });

export const QueueQuery = z
  .object({ host: z.unknown(), owner: z.unknown(), name: z.unknown(), branch: TargetBranch })
  .transform((q, ctx): QueueAddress => {
    const parsed = RepoRef.safeParse({ host: q.host, owner: q.owner, name: q.name });
    if (parsed.success) return { repo: parsed.data, targetBranch: q.branch };
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, code: 'custom', message: issue.message });
    return z.NEVER;
  });

export const PrQuery = z.object({ pr: PrNumber });

/** Throws the API's 404 unless the signed-in organisation owns the repository. */
export async function requireOwned(deps: UiRouteDeps, request: FastifyRequest, repo: RepositoryKey) {
  await deps.access.require(sessionOf(request).organisation, repo, () =>
    notFound(`Repository ${repositoryLabel(repo)} was not found.`),
  );
}

/** Query string of a queue's pages. */
export function queueQs(q: QueueAddress, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    host: q.repo.host,
    owner: q.repo.owner,
    name: q.repo.name,
    branch: q.targetBranch,
    ...extra,
  }).toString();
}

export function repoQs(r: RepositoryKey): string {
  return new URLSearchParams({ host: r.host, owner: r.owner, name: r.name }).toString();
}

/** `2025-01-02 03:04:05 UTC` from a Date, epoch ms or ISO string; '' for none. */
export function formatTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The words templates show for codes (contract/words.ts, the one vocabulary): `it.w.prState(code)`
 * and so on. A template shows the code itself only in a `title` or the whole record.
 */
export const TEMPLATE_WORDS = {
  prState: prStateWord,
  reason: (reason: string) => asSentence(reasonClause(reason)),
  queueState: queueStateWord,
  queueMode: queueModeWord,
  batchingMode: batchingModeWord,
  testStatus: testStatusWord,
  testStatusReason: (reason: string) => asSentence(testStatusReasonText(reason)),
  override: overrideWord,
  quarantineSetting: quarantineSettingWord,
} as const;

/**
 * Renders `template` with what every page needs: the organisation, the CSRF token, the poll period,
 * the time format and the words (TEMPLATE_WORDS as `it.w`).
 */
export function render(
  deps: UiRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: Record<string, unknown>,
) {
  const session = sessionOf(request);
  return reply.type('text/html; charset=utf-8').view(template, {
    org: session.organisation.slug,
    csrf: session.csrfToken,
    pollMs: deps.pollMs ?? 2_000,
    gitHubNav: deps.gitHub !== undefined,
    time: formatTime,
    w: TEMPLATE_WORDS,
    ...data,
  });
}
