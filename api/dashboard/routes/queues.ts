/**
 * The queues page (every queue of the organisation with its state and counts) and a queue's page
 * (its PRs in order, the test runs in progress drawn as what is tested on top of what, the PRs that
 * left in the last day and why), with pause/resume and cancel/restart through the merge-queue service
 * the API uses. Both refresh their live part with htmx (`hx-get` every pollMs; an htmx request gets
 * only the fragment). Changes are plain POST forms (CSRF-checked by guard.ts) answered with a 303
 * back to the queue, so they work without scripts too.
 *
 * Bounds: at most MAX_QUEUES_LISTED queues get a state read, QUEUE_READS_AT_ONCE at a time.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { readQueueMetrics } from '../../../events/store/metrics-reads';
import type { QueueMetrics } from '../../../events/queue-metrics';
import { UpdateQueueRequest } from '../../schemas/queue';
import type { Change, QueueAddress } from '../../routes/merge-queue/service';
import type { UiRouteDeps } from './deps';
import { parse, PrQuery, QueueQuery, queueQs, render, requireOwned } from './forms';
import { sessionOf } from './guard';
import { drawRuns } from './run-groups';

export const MAX_QUEUES_LISTED = 100;
const QUEUE_READS_AT_ONCE = 10;

const StateForm = z.object({ state: z.enum(['running', 'paused']) });
const PrAction = z.object({ action: z.enum(['cancel', 'restart']) });

function countsOf(m: QueueMetrics) {
  const { main, bisection } = m.byType;
  return {
    depth: main.depth + bisection.depth,
    testing: main.testing + bisection.testing,
    notReady: main.awaitingMergeability + bisection.awaitingMergeability,
    merged: main.conclusions.merged + bisection.conclusions.merged,
    failed: main.conclusions.failed + bisection.conclusions.failed,
  };
}

export function queuePages(deps: UiRouteDeps) {
  const { mergeQueue } = deps;

  async function queueData(request: Parameters<typeof sessionOf>[0], q: QueueAddress) {
    const org = sessionOf(request).organisation;
    const view = await mergeQueue.getQueue(org, q);
    if (view === null) return null;
    const [{ testRuns }, recent] = await Promise.all([
      mergeQueue.getTestRunsInProgress(org, q),
      deps.reads.recentConclusions(org.id, q),
    ]);
    const oldest = Math.min(deps.now(), ...testRuns.map((r) => Date.parse(r.createdAt)));
    const bisection = await deps.reads.bisectionRuns(
      org.id,
      testRuns.map((r) => r.testRunId),
      new Date(oldest - 60_000),
    );
    return { view, runs: drawRuns(q.targetBranch, testRuns, bisection), recent };
  }

  return (app: FastifyInstance): void => {
    app.get('/ui/queues', async (request, reply) => {
      const org = sessionOf(request).organisation;
      const metrics = (await readQueueMetrics(deps.pool, org.id, null, deps.now())) ?? [];
      const listed = metrics.slice(0, MAX_QUEUES_LISTED);
      const queues: (ReturnType<typeof countsOf> & { q: QueueAddress; qs: string; state: string })[] = [];
      for (let i = 0; i < listed.length; i += QUEUE_READS_AT_ONCE) {
        const part = listed.slice(i, i + QUEUE_READS_AT_ONCE);
        const views = await Promise.all(
          part.map((m) =>
            mergeQueue.getQueue(org, {
              repo: { host: m.queue.host, owner: m.queue.owner, name: m.queue.name },
              targetBranch: m.queue.targetBranch,
            }),
          ),
        );
        part.forEach((m, j) => {
          const q = {
            repo: { host: m.queue.host, owner: m.queue.owner, name: m.queue.name },
            targetBranch: m.queue.targetBranch,
          };
          queues.push({ q, qs: queueQs(q), state: views[j]?.state ?? 'deleted', ...countsOf(m) });
        });
      }
      return render(deps, request, reply, 'queues', {
        title: 'Queues',
        queues,
        more: metrics.length - listed.length,
      });
    });

    app.get('/ui/queue', async (request, reply) => {
      const q = parse(QueueQuery, request.query, 'querystring');
      await requireOwned(deps, request, q.repo);
      const data = await queueData(request, q);
      return render(deps, request, reply, 'queue', {
        title: `${q.repo.owner}/${q.repo.name} ${q.targetBranch}`,
        q,
        qs: queueQs(q),
        data,
      });
    });

    app.post('/ui/queue/state', async (request, reply) => {
      const q = parse(QueueQuery, request.query, 'querystring');
      const { state } = parse(StateForm, request.body, 'body');
      await requireOwned(deps, request, q.repo);
      const change: Change = { org: sessionOf(request).organisation, updateId: randomUUID() };
      await mergeQueue.updateQueue(
        change,
        UpdateQueueRequest.parse({ repo: q.repo, targetBranch: q.targetBranch, state }),
      );
      return reply.redirect(`/ui/queue?${queueQs(q)}`, 303);
    });

    app.post('/ui/queue/pr', async (request, reply) => {
      const q = parse(QueueQuery, request.query, 'querystring');
      const { pr } = parse(PrQuery, request.query, 'querystring');
      const { action } = parse(PrAction, request.body, 'body');
      await requireOwned(deps, request, q.repo);
      const change: Change = { org: sessionOf(request).organisation, updateId: randomUUID() };
      const target = { repo: q.repo, targetBranch: q.targetBranch, pr: { number: pr } };
      switch (action) {
        case 'cancel':
          await mergeQueue.cancelPullRequest(change, target);
          break;
        case 'restart':
          await mergeQueue.restartTestsOnPullRequest(change, target);
          break;
      }
      return reply.redirect(`/ui/queue?${queueQs(q)}`, 303);
    });
  };
}
