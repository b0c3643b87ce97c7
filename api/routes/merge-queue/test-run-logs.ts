/**
 * GET /v1/testRuns/{testRunId}/log: the log of a test run the queue's own command ran, as the worker
 * stored it in PostgreSQL (docs/adr/0011-run-logs.md). PR records link it (`testRuns[].logUrl`).
 *
 * Rules: only the run's organisation reads it; any other key, an unknown run and a run CI judged by its
 * statuses (no log here) all answer the same 404, so a run id says nothing across organisations. The
 * body is streamed in chunks of READ_CHUNK_BYTES as plain text; its size is bounded by what the worker
 * keeps (RAILYARD_RUN_LOG_MAX_BYTES: head and tail of a longer log, `x-railyard-log-truncated: true`).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { READ_CHUNK_BYTES } from '../../../test-runs/store/run-logs';
import { notFound } from '../../errors';
import type { Organisation } from '../../../stores/api-keys';
import { organisationOf } from '../../plugins/request-context';
import type { MergeQueueService } from './service';

/** A test run id as the queue makes them (a uuid), bounded; anything else is a 400. */
export const TEST_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const TestRunParams = z.object({
  testRunId: z
    .string()
    .regex(TEST_RUN_ID, { message: 'must be a test run id' })
    .meta({ example: '0b6f1c2e-4d1a-4f7e-9a59-3c2f0e9d8a71' }),
});

export function testRunLogRoutes(service: MergeQueueService) {
  return (app: FastifyInstance): void => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/testRuns/:testRunId/log',
      {
        schema: {
          tags: ['merge queue'],
          summary: "A test run's log (runs of the queue's own test command), streamed as plain text.",
          description:
            'Answers text/plain: the log the worker kept (head and tail of a longer one, then x-railyard-log-truncated is true). 404 for a run of another organisation, an unknown run, or a run CI judged by its statuses.',
          params: TestRunParams,
        },
      },
      async (request, reply) => {
        const org = organisationOf(request);
        const { testRunId } = request.params;
        return sendTestRunLog(reply, service, org, testRunId);
      },
    );
  };
}

/**
 * Streams the organisation's stored log of `testRunId` as plain text (the API route and the dashboard's
 * page both answer with it); the same 404 for another organisation's run, an unknown one or no log.
 * `preamble` (the dashboard's line naming the PR the log was opened from) comes before the log.
 */
export async function sendTestRunLog(
  reply: FastifyReply,
  service: Pick<MergeQueueService, 'readTestRunLog'>,
  org: Organisation,
  testRunId: string,
  preamble = '',
): Promise<FastifyReply> {
  const log = service.readTestRunLog ? await service.readTestRunLog(org, testRunId) : null;
  if (!log) throw notFound(`No log is kept for test run "${testRunId}".`);
  const { info, chunk } = log;
  const first = Buffer.from(preamble, 'utf8');
  async function* chunks() {
    if (first.length > 0) yield first;
    for (let offset = 0; offset < info.bytes; offset += READ_CHUNK_BYTES) {
      const part = await chunk(offset);
      if (part.length === 0) return;
      yield part;
    }
  }
  return reply
    .header('content-type', 'text/plain; charset=utf-8')
    .header('content-length', String(first.length + info.bytes))
    .header('x-railyard-log-truncated', String(info.truncated))
    .header('cache-control', 'private, no-store')
    .send(Readable.from(chunks()));
}
