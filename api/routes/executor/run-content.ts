/**
 * A job's run content (issue 17, issue 24): the git bundle the worker staged for the run
 * (test-runs/store/run-content.ts), streamed chunk by chunk from PostgreSQL with its length declared up
 * front. The content token never leaves the control plane: the API finds it through the job the
 * authenticated executor holds (index.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { RunContentStore } from '../../../test-runs/store/run-content';
import { notFound } from '../../errors';

export async function streamRunContent(
  contents: RunContentStore,
  token: string,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const staged = await contents.lookup(token);
  if (!staged) throw notFound("The run's content is gone: the run ended or its content expired.");
  async function* chunks() {
    for (let seq = 0; ; seq += 1) {
      const chunk = await contents.chunk(token, seq);
      if (chunk === null) return;
      yield chunk;
    }
  }
  return reply
    .header('content-type', 'application/x-git-bundle')
    .header('content-length', String(staged.sizeBytes))
    .header('cache-control', 'no-store')
    .send(Readable.from(chunks()));
}
