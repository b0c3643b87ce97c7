/**
 * /v1/executor/*: the HTTPS executor protocol's API side (issue 24, ADR 0014; shapes in
 * executor/protocol.ts). Executors authenticate with an executor credential (executor-auth.ts), take
 * test runs by long poll, fetch their content, heartbeat and report; the dispatch service
 * (test-runs/executor-dispatch.ts) turns that into Temporal calls with the stored task token.
 *
 * Rules:
 * - A job id the executor does not hold (reported, replaced by a retry of its activity, never its own)
 *   is 404 with one sentence; a report Temporal no longer waits for (the attempt timed out) is 409.
 *   Either tells the executor to drop the run, which is then never counted.
 * - A Temporal or database failure is a 503: the executor retries with backoff.
 * - While registered, the plugin keeps queued jobs' activities alive every `keepAliveMs`, and puts jobs
 *   claimed but never received back in the queue (issue 27; a claim answer this process could not
 *   write goes back at once).
 * - Any API process serves any job: everything a job needs is in PostgreSQL (only a store outage falls
 *   back on the task tokens this process handed out), so an executor whose API died heartbeats and
 *   reports through another.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ExecutorDispatch, SettleVerdict } from '../../../test-runs/executor-dispatch';
import type { ExecutorCredentials } from '../../../test-runs/store/executor-credentials';
import type { RunContentStore } from '../../../test-runs/store/run-content';
import {
  CLAIM_WAIT_MS,
  ClaimedJobSchema,
  ExecutorAnnouncementSchema,
  HeartbeatAnswerSchema,
  JobFailureSchema,
} from '../../../executor/protocol';
import { MAX_PACKED_BYTES } from '../../../executor/run-report';
import { badRequest, conflict, notFound } from '../../errors';
import { executorOf, registerExecutorAuth } from './executor-auth';
import { streamRunContent } from './run-content';
import { streamRunBasis } from './run-basis';
import { THIN_CONTENT_HEADER } from '../../../executor/content-headers';

export interface ExecutorRouteDeps {
  credentials: ExecutorCredentials;
  dispatch: ExecutorDispatch;
  contents: RunContentStore;
  /** How often queued jobs' activities are heartbeated (default 5 s; their timeout is 20 s). */
  keepAliveMs?: number;
  /** How long a claim waits for a job (default CLAIM_WAIT_MS). */
  claimWaitMs?: number;
  onKeepAliveError?: (err: unknown) => void;
}

const tags = ['executors'];
const JobParams = z.object({ id: z.uuid({ error: 'must be a job id (a UUID)' }) });
const notHeld = (id: string) =>
  notFound(`Job ${id} is not held by this executor: it was reported, retried elsewhere or never yours.`);

function settled(verdict: SettleVerdict, id: string): void {
  switch (verdict.kind) {
    case 'accepted':
      return;
    case 'stale':
      throw conflict(`Job ${id}'s run no longer waits for it: its attempt timed out or the run ended.`);
    case 'unknown_job':
      throw notHeld(id);
  }
}

export function executorRoutes(deps: ExecutorRouteDeps) {
  return (app: FastifyInstance): void => {
    registerExecutorAuth(app, deps.credentials);
    let timer: NodeJS.Timeout | undefined;
    // One pass at a time: a slow pass is not stacked behind by the next ticks.
    let pass: Promise<void> | null = null;
    app.addHook('onReady', (done) => {
      timer = setInterval(() => {
        pass ??= deps.dispatch
          .keepQueuedAlive()
          .catch((err: unknown) => deps.onKeepAliveError?.(err))
          .finally(() => (pass = null));
      }, deps.keepAliveMs ?? 5_000);
      timer.unref();
      done();
    });
    // Long polls end at once when the server closes: a claim left waiting would hold its connection
    // open past the close, which then waits out the keep-alive timeout (72 s) for it.
    const claims = new Set<AbortController>();
    app.addHook('preClose', (done) => {
      for (const claim of claims) claim.abort();
      done();
    });
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await pass;
    });
    app.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: MAX_PACKED_BYTES + 1024 },
      (_request, body, done) => done(null, body),
    );
    const r = app.withTypeProvider<ZodTypeProvider>();
    const shared = { config: { public: true } } as const;

    r.post(
      '/executor/announce',
      {
        ...shared,
        schema: {
          tags,
          summary:
            'An executor says what it is when it starts; answers the name its credential was issued to.',
          body: ExecutorAnnouncementSchema,
          response: { 200: z.object({ name: z.string() }) },
        },
      },
      async (request) => {
        const executor = executorOf(request);
        await deps.credentials.announce(executor.id, request.body);
        return { name: executor.name };
      },
    );

    r.post(
      '/executor/jobs/claim',
      {
        ...shared,
        schema: {
          tags,
          summary: 'Long poll: the oldest waiting test run (200), or none within the wait (204).',
          response: { 200: ClaimedJobSchema, 204: z.null() },
        },
      },
      async (request, reply) => {
        const executor = executorOf(request);
        const gone = new AbortController();
        // The executor went away (shut down, crashed): the claim stops looking, so no job is taken for it.
        reply.raw.once('close', () => gone.abort());
        claims.add(gone);
        const job = await deps.dispatch
          .claim(executor.id, { waitMs: deps.claimWaitMs ?? CLAIM_WAIT_MS, signal: gone.signal })
          .finally(() => claims.delete(gone));
        if (!job) return reply.code(204).send(null);
        request.log.info({ executor: executor.name, jobId: job.id, runId: job.run.runId }, 'job claimed');
        // An answer that could not be written (the executor's connection closed first) hands the job back
        // now; one written but lost on the way is found by the keep-alive pass (executor-dispatch.ts).
        reply.raw.once('close', () => {
          if (reply.raw.writableFinished) return;
          request.log.warn(
            { executor: executor.name, jobId: job.id },
            'claimed job not delivered; back to the queue',
          );
          void deps.dispatch.release(executor.id, job.id).catch(() => undefined);
        });
        return job;
      },
    );

    r.get(
      '/executor/jobs/:id/content',
      {
        ...shared,
        schema: {
          tags,
          summary: "The git bundle of a job's tested commit (application/x-git-bundle).",
          params: JobParams,
        },
      },
      async (request, reply) => {
        const token = await deps.dispatch.contentToken(executorOf(request).id, request.params.id);
        if (!token) throw notHeld(request.params.id);
        return streamRunContent(deps.contents, token, reply, {
          thinAccepted: request.headers[THIN_CONTENT_HEADER] === '1',
        });
      },
    );

    r.get(
      '/executor/jobs/:id/basis',
      {
        ...shared,
        schema: {
          tags,
          summary: "The git bundle of the basis a job's thin content needs (application/x-git-bundle).",
          params: JobParams,
        },
      },
      async (request, reply) => {
        const token = await deps.dispatch.contentToken(executorOf(request).id, request.params.id);
        if (!token) throw notHeld(request.params.id);
        return streamRunBasis(deps.contents, token, reply);
      },
    );

    r.post(
      '/executor/jobs/:id/heartbeat',
      {
        ...shared,
        schema: {
          tags,
          summary:
            'The run goes on: answers whether to continue or stop it (cancelled, or its attempt is gone).',
          params: JobParams,
          response: { 200: HeartbeatAnswerSchema },
        },
      },
      async (request) => {
        const verdict = await deps.dispatch.heartbeat(executorOf(request).id, request.params.id);
        switch (verdict.kind) {
          case 'continue':
            return { action: 'continue' as const };
          case 'stop':
            return { action: 'stop' as const, reason: verdict.reason };
          case 'unknown_job':
            throw notHeld(request.params.id);
        }
      },
    );

    r.put(
      '/executor/jobs/:id/report',
      {
        ...shared,
        bodyLimit: MAX_PACKED_BYTES + 1024,
        schema: {
          tags,
          summary: "The run's packed report (gzip'd JSON, executor/run-report.ts), application/octet-stream.",
          params: JobParams,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0)
          throw badRequest('The body must be the packed run report, as application/octet-stream.');
        const verdict = await deps.dispatch.report(
          executorOf(request).id,
          request.params.id,
          new Uint8Array(body),
        );
        settled(verdict, request.params.id);
        return reply.code(204).send(null);
      },
    );

    r.post(
      '/executor/jobs/:id/failure',
      {
        ...shared,
        schema: {
          tags,
          summary: 'The run could not be run: content gone (not retried) or the executor at fault (retried).',
          params: JobParams,
          body: JobFailureSchema,
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        const verdict = await deps.dispatch.fail(executorOf(request).id, request.params.id, request.body);
        settled(verdict, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
