/**
 * Repository access: a request that names a repository acts on it only if the key's organisation owns
 * it (docs/adr/0006-repository-ownership.md). Otherwise the answer is the same 404 the caller gets for
 * something that does not exist, so a key cannot tell another organisation's repository from a
 * repository nobody uses.
 *
 * Rules:
 * - Every authenticated route whose validated body carries `repo {host, owner, name}`, or whose query
 *   carries `host`, `owner` and `name`, is checked here, after validation and before the handler.
 *   A route that finds its repository itself (an upload's multipart metadata, the metrics query, a
 *   test found by id) says `config: { repository: 'route' }` and calls `requireRepository` or
 *   `useRepository` on this plugin's decoration.
 * - `config: { repository: 'first-use' }` (createQueue): under the `first-use` claim policy an
 *   unclaimed repository is claimed for the caller; a repository owned by another stays a 404.
 * - Claims over the organisation's repository limit are a 409 naming the limit.
 */
import type { FastifyInstance } from 'fastify';
import type { Organisation } from '../../stores/api-keys';
import type { Pool } from '../../stores/db';
import {
  createRepositoryOwnerStore,
  type ClaimResult,
  type RepositoryOwnerStore,
} from '../../stores/repository-owners';
import { repositoryLabel, type RepositoryKey } from '../../contract';
import { conflict, notFound } from '../errors';
import { namedRepository, organisationOf } from './request-context';

/**
 * Who may claim an unclaimed repository: `first-use` (an organisation's first queue or upload claims
 * it, and `POST /v1/repositories/claim`), `api` (only the claim endpoint) or `operator` (only
 * `npm run repos -- add`).
 */
export type ClaimPolicy = 'first-use' | 'api' | 'operator';
export const CLAIM_POLICIES = ['first-use', 'api', 'operator'] as const;

export interface RepositoryAccessDeps {
  owners: RepositoryOwnerStore;
  claims: ClaimPolicy;
}

export interface RepositoryAccess {
  readonly claims: ClaimPolicy;
  /** Throws the 404 unless the organisation owns the repository. */
  require(org: Organisation, repo: RepositoryKey, missing?: () => Error): Promise<void>;
  /**
   * `require`, except that the first use of an unclaimed repository claims it under `first-use`; says
   * which happened.
   */
  use(org: Organisation, repo: RepositoryKey): Promise<'owned' | 'claimed'>;
  /** Undoes a claim `use` has just made (the request it was for was refused). */
  release(org: Organisation, repo: RepositoryKey): Promise<void>;
  /** An explicit claim (POST /v1/repositories/claim). */
  claim(org: Organisation, repo: RepositoryKey): Promise<ClaimResult>;
}

declare module 'fastify' {
  interface FastifyInstance {
    repositoryAccess: RepositoryAccess;
  }
  interface FastifyContextConfig {
    /** How the repository a request names is checked; default: from the body or query, here. */
    repository?: 'first-use' | 'route';
    /** The 404 this route answers for what does not exist, when it is not the queue's or repository's. */
    repositoryMissing?: (body: never) => Error;
  }
}

export const repositoryNotOwned = (repo: RepositoryKey) =>
  notFound(
    `Repository ${repositoryLabel(repo)} is not one of your organisation's repositories; claim it with POST /v1/repositories/claim or ask your railyard operator.`,
  );

export const repositoryLimitReached = (limit: number) =>
  conflict(
    `Your organisation already owns ${limit} repositories, the most it may own; ask your railyard operator to raise RAILYARD_MAX_REPOSITORIES_PER_ORGANISATION.`,
  );

/** The flaky-test area's wording for a repository it has no data of (routes/flaky-tests/scope.ts). */
const repositoryNotFound = (repo: RepositoryKey) =>
  notFound(`Repository ${repositoryLabel(repo)} was not found.`);

const queueNotVisible = (repo: RepositoryKey, targetBranch: string) =>
  notFound(`No merge queue exists for branch "${targetBranch}" of ${repositoryLabel(repo)}.`);

/** The owner store over `pool` and the access rules over it, as AppDeps.repositories takes them. */
export function repositoryAccessOver(
  pool: Pool,
  opts: { claims?: ClaimPolicy; maxPerOrganisation?: number } = {},
): { owners: RepositoryOwnerStore; access: RepositoryAccess } {
  const owners = createRepositoryOwnerStore(pool, {
    ...(opts.maxPerOrganisation === undefined ? {} : { maxPerOrganisation: opts.maxPerOrganisation }),
  });
  return { owners, access: createRepositoryAccess({ owners, claims: opts.claims ?? 'first-use' }) };
}

export function createRepositoryAccess(deps: RepositoryAccessDeps): RepositoryAccess {
  const { owners, claims } = deps;
  return {
    claims,
    async require(org, repo, missing = () => repositoryNotFound(repo)) {
      if (!(await owners.owns(org.id, repo))) throw missing();
    },
    async use(org, repo) {
      if (await owners.owns(org.id, repo)) return 'owned';
      if (claims !== 'first-use') throw repositoryNotOwned(repo);
      const claimed = await owners.claim(org.id, repo, 'first-use');
      switch (claimed.kind) {
        case 'claimed':
          return 'claimed';
        case 'already_yours':
          return 'owned';
        case 'taken':
          throw repositoryNotOwned(repo);
        case 'limit_reached':
          throw repositoryLimitReached(claimed.limit);
      }
    },
    claim: (org, repo) => owners.claim(org.id, repo, 'api'),
    async release(org, repo) {
      if (await owners.owns(org.id, repo)) await owners.remove(repo);
    },
  };
}

export function registerRepositoryAccess(app: FastifyInstance, access: RepositoryAccess): void {
  app.decorate('repositoryAccess', access);
  app.addHook('preHandler', async (request) => {
    const config = request.routeOptions.config;
    if (request.organisation === null || config.repository === 'route') return;
    const repo = namedRepository(request);
    if (repo === null) return;
    const org = organisationOf(request);
    if (config.repository === 'first-use') {
      await access.use(org, repo);
      return;
    }
    // A merge-queue request answers exactly as for a queue the caller cannot see.
    const targetBranch = (request.body as { targetBranch?: unknown } | undefined)?.targetBranch;
    const missing = config.repositoryMissing as ((body: unknown) => Error) | undefined;
    await access.require(org, repo, () =>
      missing
        ? missing(request.body)
        : typeof targetBranch === 'string'
          ? queueNotVisible(repo, targetBranch)
          : repositoryNotFound(repo),
    );
  });
}
