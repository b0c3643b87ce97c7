/**
 * The preflight (issue 28, docs/github.md "Preflight"): railyard's own operations, beside Trunk's v1
 * ones and not in their shape (`/v1/queues/...`, like `/v1/repositories` and `/v1/webhooks`):
 *   POST /v1/queues/preflight        starts the queue's preflight (or answers the one running), 202
 *   POST /v1/queues/preflight/result the queue's latest preflight: running, or its answer
 * The wait is asynchronous: a request never waits for CI. The preflight waits server-side for at most
 * `waitSeconds` (MIN_WAIT_SECONDS..MAX_WAIT_SECONDS; default the queue's stalledCheckGraceMinutes, or
 * DEFAULT_STALL_GRACE_MINUTES when that is 0) and the caller polls for the answer.
 *
 * Rules: the caller's organisation must own the queue (404 as for any queue it does not have: the
 * repository check, then the queue's own); one preflight per queue at a time; requests count against the
 * organisation's request rate like every keyed write (plugins/rate-limit.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { preflightSentence, type PreflightResult } from '../../../contract';
import { DEFAULT_STALL_GRACE_MINUTES } from '../../../engine';
import { notFound } from '../../errors';
import { organisationOf } from '../../plugins/request-context';
import { QueueRequest } from '../../schemas/common';
import { EXAMPLE_QUEUE, withExample } from '../../schemas/examples';
import type { PreflightService, PreflightState } from '../../temporal/preflights';
import { queueNotFound, type MergeQueueService, type QueueAddress } from '../merge-queue/service';

export const MIN_WAIT_SECONDS = 5;
export const MAX_WAIT_SECONDS = 1_800;

const tags = ['preflight'];

const StartRequest = withExample(
  QueueRequest.extend({
    waitSeconds: z
      .number()
      .int({ message: 'must be a whole number of seconds' })
      .min(MIN_WAIT_SECONDS)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(
        `How long the preflight waits for the required checks to start, ${MIN_WAIT_SECONDS} to ${MAX_WAIT_SECONDS} seconds; default the queue's stalledCheckGraceMinutes (${DEFAULT_STALL_GRACE_MINUTES} minutes when it is 0).`,
      ),
  }),
  { ...EXAMPLE_QUEUE, waitSeconds: 300 },
);

const Names = z.array(z.string());
const Result = z.object({
  kind: z
    .enum(['started', 'missing', 'no_checks', 'problem'])
    .describe(
      '`started`: every required check started; `missing`: some did not within the wait; `no_checks`: the queue runs its own command, no CI check to wait for; `problem`: nothing was pushed (see sentence).',
    ),
  sentence: z.string().describe('The answer as one sentence, with the likely cause and what to change.'),
  branch: z.string().optional().describe('The throw-away test branch (deleted when the preflight ends).'),
  draftPullRequest: z
    .object({
      number: z.number().int().describe("The draft PR's number on the host."),
      url: z.string().describe("The draft PR's page on the host."),
    })
    .optional()
    .describe(
      "Draft-PR testing mode (the queue's createPrsForTestingBranches): the draft PR the preflight opened from its branch into the target, closed when the preflight ended. Absent when the mode is off or the host has no PRs.",
    ),
  sha: z.string().optional(),
  required: Names.optional(),
  started: Names.optional(),
  missing: Names.optional(),
  cause: z
    .enum(['nothing_reported', 'not_produced'])
    .optional()
    .describe(
      '`nothing_reported`: no check at all on the branch (no workflow triggered on the test-branch prefix); `not_produced`: other checks reported, not the required one.',
    ),
  otherChecks: Names.optional(),
  waitedSeconds: z.number().optional(),
});

const PreflightView = z.object({
  state: z.enum(['running', 'done']),
  startedAt: z.string().describe('ISO 8601 time.'),
  waitsUntil: z.string().nullable().describe('ISO 8601 time the wait ends, while running and known.'),
  result: Result.nullable().describe('The answer once done; null while running.'),
});
type PreflightView = z.infer<typeof PreflightView>;

function resultWire(r: PreflightResult): z.infer<typeof Result> {
  const sentence = preflightSentence(r);
  switch (r.kind) {
    case 'started':
    case 'missing': {
      const { waitedMs, ...rest } = r;
      return { ...rest, sentence, waitedSeconds: Math.round(waitedMs / 1000) };
    }
    case 'no_checks':
    case 'problem':
      return { kind: r.kind, sentence };
  }
}

function viewOf(s: PreflightState): PreflightView {
  return {
    state: s.state,
    startedAt: s.startedAt.toISOString(),
    waitsUntil: s.state === 'running' && s.waitsUntil ? s.waitsUntil.toISOString() : null,
    result: s.state === 'done' ? resultWire(s.result) : null,
  };
}

const noPreflight = (q: QueueAddress) =>
  notFound(
    `No preflight has run for the merge queue for ${q.targetBranch} of ${q.repo.host}/${q.repo.owner}/${q.repo.name}; start one with POST /v1/queues/preflight.`,
  );

export function preflightRoutes(preflights: PreflightService, queues: Pick<MergeQueueService, 'getQueue'>) {
  return (app: FastifyInstance): void => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/queues/preflight',
      {
        schema: {
          tags,
          summary: "Push a throw-away test branch and see whether the queue's required checks start on it.",
          description:
            "railyard's own operation (not Trunk's). Starts the queue's preflight, or answers the one running: it pushes a test branch (the queue's test-branch prefix, one commit on the target's tip), waits up to waitSeconds for each required check to start (any check run or status of its name), answers which did and which did not with the likely cause, and deletes the branch. Answers 202 at once; poll POST /v1/queues/preflight/result for the answer.",
          body: StartRequest,
          response: { 202: PreflightView },
        },
      },
      async (request, reply) => {
        const org = organisationOf(request);
        const { waitSeconds, ...address } = request.body;
        const queue = await queues.getQueue(org, address);
        if (!queue) throw queueNotFound(address);
        const grace =
          queue.stalledCheckGraceMinutes > 0 ? queue.stalledCheckGraceMinutes : DEFAULT_STALL_GRACE_MINUTES;
        const seconds = waitSeconds ?? Math.min(MAX_WAIT_SECONDS, grace * 60);
        const state = await preflights.start(org, address, {
          requiredStatuses: queue.requiredStatuses,
          testBranchPrefix: queue.testBranchPrefix,
          waitMs: seconds * 1000,
          // Draft-PR testing mode: the preflight's branch gets its draft PR, as the queue's runs do.
          draftPullRequest: queue.createPrsForTestingBranches,
        });
        return reply.code(202).send(viewOf(state));
      },
    );

    r.post(
      '/queues/preflight/result',
      {
        schema: {
          tags,
          summary: "The queue's latest preflight: running, or its answer.",
          body: QueueRequest,
          response: { 200: PreflightView },
        },
      },
      async (request) => {
        const org = organisationOf(request);
        if (!(await queues.getQueue(org, request.body))) throw queueNotFound(request.body);
        const state = await preflights.read(org, request.body);
        if (!state) throw noPreflight(request.body);
        return viewOf(state);
      },
    );
  };
}
