/**
 * Who may be hinted about a GitHub repository (ADR 0008): the organisation an installation linked to
 * it covers the repository for. Read from repository_owners joined with github_installations.
 *
 * Rules:
 * - A repository of the app's host is held only through a linked installation: its repository_owners
 *   row names the installation, and that installation is linked to the same organisation. Claims
 *   made otherwise (ADR 0006) never make an organisation's queue receive GitHub's hints.
 * - `holderOf` also needs the delivery's installation to be that installation: a delivery of one
 *   installation never hints queues about a repository another installation covers.
 * - Names compare case-insensitively, like every ownership check.
 */
import type { Pool } from '../../stores/db';
import type { QueueKey, RepositoryKey } from '../../contract';

export interface RepositoryHolder {
  organisationId: string;
  /** The repository as its ownership row spells it (GitHub's listing). */
  repository: RepositoryKey;
}

export interface GitHubOwnerLookup {
  holderOf(installationId: number, repo: { owner: string; name: string }): Promise<RepositoryHolder | null>;
  /** For each queue, whether its organisation holds its repository through a linked installation. */
  holdsQueues(queues: readonly QueueKey[]): Promise<boolean[]>;
}

export function createGitHubOwnerLookup(pool: Pool, host: string): GitHubOwnerLookup {
  return {
    async holderOf(installationId, repo) {
      const { rows } = await pool.query<{
        organisation_id: string;
        host: string;
        owner: string;
        name: string;
      }>({
        name: 'github-hint-holder',
        text: `SELECT r.organisation_id, r.host, r.owner, r.name FROM repository_owners r
               JOIN github_installations g
                 ON g.installation_id = r.github_installation_id AND g.organisation_id = r.organisation_id
               WHERE lower(r.host) = lower($1) AND lower(r.owner) = lower($2) AND lower(r.name) = lower($3)
                 AND r.github_installation_id = $4`,
        values: [host, repo.owner, repo.name, installationId],
      });
      const row = rows[0];
      return row
        ? {
            organisationId: row.organisation_id,
            repository: { host: row.host, owner: row.owner, name: row.name },
          }
        : null;
    },

    async holdsQueues(queues) {
      if (queues.length === 0) return [];
      const { rows } = await pool.query<{ i: string }>({
        name: 'github-hint-holds-queues',
        text: `SELECT t.i FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(org, o, n, i)
               JOIN repository_owners r
                 ON lower(r.host) = lower($1) AND lower(r.owner) = lower(t.o) AND lower(r.name) = lower(t.n)
                    AND r.organisation_id::text = t.org
               JOIN github_installations g
                 ON g.installation_id = r.github_installation_id AND g.organisation_id = r.organisation_id`,
        values: [
          host,
          queues.map((q) => q.organisationId),
          queues.map((q) => q.repo.owner),
          queues.map((q) => q.repo.name),
        ],
      });
      const held = new Set(rows.map((r) => Number(r.i) - 1));
      return queues.map((q, i) => held.has(i) && q.repo.host.toLowerCase() === host.toLowerCase());
    },
  };
}
