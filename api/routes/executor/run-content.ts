/**
 * A job's run content (issue 17, issue 24, issue 25): the git bundle the worker staged for the run
 * (test-runs/store/run-content.ts), streamed chunk by chunk from PostgreSQL with its length declared up
 * front. The content token never leaves the control plane: the API finds it through the job the
 * authenticated executor holds (index.ts).
 *
 * Thin content (ADR 0025) is served only to an executor that asks for it (THIN_CONTENT_HEADER): it
 * is told the basis the bundle needs (BASIS_HEADER, fetched from run-basis.ts when its cache lacks it)
 * and the organisation its cache keeps it under (ORGANISATION_HEADER). An executor that does not ask
 * (one older than the thin hand-off, during a rolling upgrade) gets a 409 for thin content, which it
 * retries and then fails as its own fault: the run is tried on another executor.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { RunContentStore } from '../../../test-runs/store/run-content';
import { conflict, notFound } from '../../errors';
import { BASIS_HEADER, ORGANISATION_HEADER } from '../../../executor/content-headers';

export const CONTENT_GONE = "The run's content is gone: the run ended or its content expired.";

export async function streamRunContent(
  contents: RunContentStore,
  token: string,
  reply: FastifyReply,
  opts: { thinAccepted: boolean },
): Promise<FastifyReply> {
  const staged = await contents.lookup(token);
  if (!staged) throw notFound(CONTENT_GONE);
  if (staged.basis && !opts.thinAccepted)
    throw conflict(
      "The run's content is a thin bundle on a basis, which this executor does not take: upgrade it.",
    );
  async function* chunks() {
    for (let seq = 0; ; seq += 1) {
      const chunk = await contents.chunk(token, seq);
      if (chunk === null) return;
      yield chunk;
    }
  }
  if (staged.basis)
    reply.header(BASIS_HEADER, staged.basis.sha).header(ORGANISATION_HEADER, staged.organisationId);
  return reply
    .header('content-type', 'application/x-git-bundle')
    .header('content-length', String(staged.sizeBytes))
    .header('cache-control', 'no-store')
    .send(Readable.from(chunks()));
}
