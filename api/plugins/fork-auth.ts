/**
 * Fork authentication (README "Fork pull requests"). CI runs of PRs from forks have no secrets, so
 * Trunk's clients send, with an empty `x-api-token`, either the repository's public id
 * (`x-trunk-public-repo-id`: analytics-cli's upload calls) or the GitHub Actions run id
 * (`x-forked-workflow-run-id`: merge-action's setImpactedTargets). A route accepts one of them only if
 * it says so: `config: { forkAuth: 'public-repo-id' | 'forked-run' }`.
 *
 * Rules:
 * - An API key always wins; the fork headers are read only when it is absent or empty, and only on a
 *   route that opted in. On any other route the request is the usual 401 "Missing API key": a public id
 *   authorises nothing else (no merge-queue change, no flaky-test read, no listing).
 * - The principal a fork header yields is one organisation and ONE repository. The repository the
 *   validated request names must be that repository, else 403 (the caller knows its id; the answer is
 *   the same whether or not the other repository exists or is the same organisation's). The usual
 *   ownership check (repository-access.ts) then runs as for a key of that organisation.
 * - `forked-run`: the repository must be on the GitHub App's host and owned through a linked
 *   installation; the run is checked with GitHub (github/inbound/forked-runs.ts) against the
 *   body's `pr.number` and `pr.sha`. Without the App, 403 saying fork submissions need it.
 * - An unknown public id, a malformed run id and a run GitHub does not vouch for are counted as failed
 *   authentications of the address (auth-failures.ts): past the limit, 429 before any lookup.
 * - Checking a run with GitHub spends the linked organisation's installation budget, so it is bounded
 *   (fork-run-budget.ts): a run id GitHub said does not exist is refused again without asking, each
 *   check is counted against the caller's address (refused before its body is read once none is
 *   left) and against the repository, whoever asks.
 * - A forked-run request's body is parsed before the run is checked (the body names the repository),
 *   so it may be at most FORK_BODY_LIMIT_BYTES, not the 20 MiB a keyed request may send: 413 past it,
 *   before the body is parsed.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ForkedRunVerifier } from '../../github/inbound/forked-runs';
import { isGitHubRepository } from '../../github/store/installations';
import type { RepositoryPublicIds } from '../../stores/repository-public-ids';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import { forbidden, unauthorized, unavailable } from '../errors';
import type { AuthFailureLimiter } from './auth-failures';
import type { ForkAuthenticator, ForkAuthMode } from './auth-types';
import { createForkRunBudget, DEFAULT_FORK_RUN_BUDGET, type ForkRunBudgetSettings } from './fork-run-budget';
import { namedRepository } from './request-context';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The fork header this route accepts instead of an API key. */
    forkAuth?: ForkAuthMode;
  }
}

export interface ForkAuthDeps {
  publicIds: RepositoryPublicIds;
  /** The GitHub App's host and run checks; absent without an App (forked runs are then refused). */
  forkedRuns?: { host: string; verifier: ForkedRunVerifier };
  /** What run checks may cost the installation; DEFAULT_FORK_RUN_BUDGET when absent. */
  runChecks?: ForkRunBudgetSettings;
  /** API processes alive (platform/replica-census.ts): the run-check figures are split over them. */
  replicas?: () => number;
}

const RUN_ID = /^[1-9][0-9]{0,15}$/;

/** The largest body of a forked-run request: setImpactedTargets' own bounds, with room for escapes. */
export const FORK_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

const forkBodyTooLarge = () =>
  Object.assign(
    new Error(
      `A request with x-forked-workflow-run-id may send at most ${FORK_BODY_LIMIT_BYTES / 1024 / 1024} MiB; send an API key for larger bodies.`,
    ),
    { statusCode: 413 },
  );

/** The payload, failing with the 413 once more than `limit` bytes have come. */
function limitedPayload(payload: NodeJS.ReadableStream, limit: number): Transform {
  let received = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > limit ? forkBodyTooLarge() : null, chunk);
    },
  });
  payload.on('error', (err: Error) => limited.destroy(err));
  return payload.pipe(limited);
}

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return ((Array.isArray(value) ? value[0] : value) ?? '').trim();
}

const same = (a: RepositoryKey, b: RepositoryKey) =>
  a.host.toLowerCase() === b.host.toLowerCase() &&
  a.owner.toLowerCase() === b.owner.toLowerCase() &&
  a.name.toLowerCase() === b.name.toLowerCase();

export function registerForkAuth(
  app: FastifyInstance,
  deps: ForkAuthDeps,
  failures?: AuthFailureLimiter,
): ForkAuthenticator {
  app.decorateRequest('fork', null);
  const budget = createForkRunBudget(
    deps.runChecks ?? DEFAULT_FORK_RUN_BUDGET,
    deps.replicas ? { replicas: deps.replicas } : {},
  );
  const refuse = (request: FastifyRequest, message: string) => {
    failures?.record(request.ip);
    return unauthorized(message);
  };
  const throttle = (request: FastifyRequest) => {
    const refused = failures?.check(request.ip);
    if (refused) throw refused;
  };

  // Before the body is read: a forked-run request may not send the 20 MiB a key may.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.fork?.kind !== 'forked-run') return payload;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > FORK_BODY_LIMIT_BYTES) throw forkBodyTooLarge();
    return limitedPayload(payload, FORK_BODY_LIMIT_BYTES);
  });

  // After validation, before the ownership check (registered earlier, so it runs first).
  app.addHook('preHandler', async (request) => {
    const fork = request.fork;
    if (fork === null) return;
    const named = namedRepository(request);
    switch (fork.kind) {
      case 'public-repo-id':
        if (named === null || !same(named, fork.repository))
          throw forbidden(
            `The public repository id in x-trunk-public-repo-id authorises uploads for its own repository only, not for ${named ? repositoryLabel(named) : 'this request'}.`,
          );
        return;
      case 'forked-run': {
        const pr = (request.body as { pr?: { number?: unknown; sha?: unknown } } | undefined)?.pr;
        if (named === null || typeof pr?.number !== 'number' || typeof pr.sha !== 'string')
          throw forbidden('x-forked-workflow-run-id needs a request naming repo, pr.number and pr.sha.');
        const gitHub = deps.forkedRuns;
        const holding =
          gitHub && isGitHubRepository(named, gitHub.host) ? await deps.publicIds.ownerOf(named) : null;
        if (!gitHub || holding === null || holding.installationId === null)
          throw forbidden(
            `Fork submissions with x-forked-workflow-run-id need railyard's GitHub App installed on ${repositoryLabel(named)} and linked (docs/github.md); otherwise send an API key.`,
          );
        const known = budget.unknownRun(holding.repository, fork.runId);
        if (known !== null) throw refuse(request, `x-forked-workflow-run-id was not accepted: ${known}`);
        const spent = budget.take(request.ip, holding.repository);
        if (spent) throw spent;
        const verdict = await gitHub.verifier.verify({
          installationId: holding.installationId,
          repo: holding.repository,
          runId: fork.runId,
          pr: { number: pr.number, sha: pr.sha },
        });
        switch (verdict.kind) {
          case 'accepted':
            request.organisation = holding.organisation;
            return;
          case 'refused':
            if (verdict.unknownRun) budget.rememberUnknown(holding.repository, fork.runId, verdict.reason);
            throw refuse(request, `x-forked-workflow-run-id was not accepted: ${verdict.reason}`);
          case 'not_permitted':
            throw forbidden(
              `railyard's GitHub App may not read the workflow runs of ${repositoryLabel(named)}: it needs the Actions: read permission (docs/github.md).`,
            );
          case 'unavailable':
            throw unavailable(
              `x-forked-workflow-run-id could not be checked with GitHub (${verdict.reason}); retry shortly.`,
            );
        }
      }
    }
  });

  return {
    async authenticate(request) {
      const mode = request.routeOptions.config.forkAuth;
      switch (mode) {
        case undefined:
          return false;
        case 'public-repo-id': {
          const id = header(request, 'x-trunk-public-repo-id');
          if (id === '') return false;
          throttle(request);
          const holding = await deps.publicIds.find(id);
          if (!holding)
            throw refuse(request, 'The public repository id in x-trunk-public-repo-id is not valid.');
          request.organisation = holding.organisation;
          request.fork = { kind: 'public-repo-id', repository: holding.repository };
          return true;
        }
        case 'forked-run': {
          const raw = header(request, 'x-forked-workflow-run-id');
          if (raw === '') return false;
          throttle(request);
          const noChecksLeft = budget.checkAddress(request.ip);
          if (noChecksLeft) throw noChecksLeft;
          if (!RUN_ID.test(raw))
            throw refuse(
              request,
              'x-forked-workflow-run-id must be a GitHub Actions run id (a whole number).',
            );
          // The organisation is known once the body names the repository (preHandler above).
          request.fork = { kind: 'forked-run', runId: Number(raw) };
          return true;
        }
      }
    },
  };
}
