/**
 * The basis of a job's thin run content (issue 25, ADR 0025): the full git bundle of the basis commit
 * the run's thin bundle needs, for an executor whose object cache lacks it. It is read through the
 * content's own row (RunContentStore.basisChunk), so only the executor holding a job (index.ts) reads,
 * and only the basis of that job's content: never another repository's or organisation's.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { RunContentStore } from '../../../test-runs/store/run-content';
import { notFound } from '../../errors';
import { BASIS_HEADER } from '../../../executor/content-headers';
import { CONTENT_GONE } from './run-content';

export async function streamRunBasis(
  contents: RunContentStore,
  token: string,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const staged = await contents.lookup(token);
  if (!staged) throw notFound(CONTENT_GONE);
  if (!staged.basis) throw notFound("The run's content is a full bundle: it needs no basis.");
  async function* chunks() {
    for (let seq = 0; ; seq += 1) {
      const chunk = await contents.basisChunk(token, seq);
      if (chunk === null) return;
      yield chunk;
    }
  }
  return reply
    .header('content-type', 'application/x-git-bundle')
    .header('content-length', String(staged.basis.sizeBytes))
    .header(BASIS_HEADER, staged.basis.sha)
    .header('cache-control', 'no-store')
    .send(Readable.from(chunks()));
}
