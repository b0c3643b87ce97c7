/**
 * GitHub App installations linked to organisations, and the repository ownership they confer
 * (docs/adr/0008-github-installations.md, migration 0010).
 *
 * Invariants:
 * - An installation is linked to at most one organisation; a link never moves an installation away
 *   from its organisation (only `unlink`, by operators, frees it).
 * - The organisation an installation is linked to owns the repositories it covers: each is a
 *   repository_owners row with claimed_by 'github-installation' and the installation's id, written by
 *   `syncRepositories` / `addRepositories` from GitHub's own listing. Unlinking deletes them.
 * - A repository covered by the installation but claimed without an installation by another
 *   organisation (first-use, api, operator, migration) moves to the installation's organisation only
 *   when an operator linked the installation; an installation linked through the API leaves it where
 *   it is and reports it (`ownedElsewhere`). A claim through another installation always moves:
 *   GitHub's current listing says the repository changed accounts.
 * - Syncs of one installation are serialised (advisory lock), so two listings never interleave.
 * - While GitHub is configured, a repository of the GitHub host is owned only through a linked
 *   installation (`installationOwnership`).
 */
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../../stores/transaction';
import type { RepositoryKey } from '../../contract';
import type { RepositoryOwnership } from '../../stores/repository-owners';

export type LinkSource = 'operator' | 'api';

export interface InstallationLink {
  installationId: number;
  /** repo.host of the installation's repositories. */
  host: string;
  accountLogin: string;
  suspendedAt: Date | null;
}

export interface GitHubInstallation extends InstallationLink {
  organisationId: string;
  organisationSlug: string;
  linkedBy: LinkSource;
  linkedAt: Date;
  /** Repositories the organisation owns through this installation. */
  repositories: number;
}

export type LinkResult = { kind: 'linked' } | { kind: 'already_yours' } | { kind: 'taken' };

export interface SyncResult {
  /** Repositories now owned through the installation. */
  covered: number;
  added: number;
  removed: number;
  /** Repositories that moved to the installation's organisation from another organisation. */
  takenOver: RepositoryKey[];
  /** Covered on GitHub but left with the other organisation that claimed them (API links only). */
  ownedElsewhere: RepositoryKey[];
}

export interface GitHubInstallationStore {
  link(organisationId: string, installation: InstallationLink, source: LinkSource): Promise<LinkResult>;
  /** Unlinks and drops the repository claims it conferred; false if it was not linked. */
  unlink(installationId: number): Promise<boolean>;
  find(installationId: number): Promise<GitHubInstallation | null>;
  list(organisationId?: string): Promise<GitHubInstallation[]>;
  /** Records GitHub's suspension (or its end); false if the installation is not linked. */
  setSuspended(installationId: number, at: Date | null): Promise<boolean>;
  /** The installation's complete listing: owns these, and no longer the ones missing from it. */
  syncRepositories(installationId: number, repos: readonly Covered[]): Promise<SyncResult>;
  /** Repositories added to the installation (the `installation_repositories.added` event). */
  addRepositories(installationId: number, repos: readonly Covered[]): Promise<SyncResult>;
  /** Repositories removed from it; returns how many claims were dropped. */
  removeRepositories(installationId: number, repos: readonly Covered[]): Promise<number>;
}

interface Covered {
  owner: string;
  name: string;
}

export class InstallationNotLinkedError extends Error {
  override readonly name = 'InstallationNotLinkedError';
  constructor(readonly installationId: number) {
    super(`GitHub App installation ${installationId} is not linked to an organisation.`);
  }
}

interface InstallationRow {
  installation_id: string;
  organisation_id: string;
  slug: string;
  host: string;
  account_login: string;
  linked_by: LinkSource;
  linked_at: Date;
  suspended_at: Date | null;
  repositories: number;
}

const SELECT_INSTALLATIONS = `
  SELECT g.installation_id, g.organisation_id, o.slug, g.host, g.account_login, g.linked_by, g.linked_at,
         g.suspended_at,
         (SELECT count(*) FROM repository_owners r WHERE r.github_installation_id = g.installation_id)::int
           AS repositories
  FROM github_installations g JOIN organisations o ON o.id = g.organisation_id`;

const toInstallation = (row: InstallationRow): GitHubInstallation => ({
  installationId: Number(row.installation_id),
  organisationId: row.organisation_id,
  organisationSlug: row.slug,
  host: row.host,
  accountLogin: row.account_login,
  linkedBy: row.linked_by,
  linkedAt: row.linked_at,
  suspendedAt: row.suspended_at,
  repositories: row.repositories,
});

/**
 * Claims every listed repository for the installation's organisation in one statement. A row is
 * updated only when it is the organisation's own, another installation's, or `$6` (take over) holds.
 */
const UPSERT_COVERED = `
  WITH input AS (
    SELECT DISTINCT ON (lower(o), lower(n)) o AS owner, n AS name
    FROM unnest($2::text[], $3::text[]) AS t(o, n)
  ), prior AS (
    SELECT r.owner, r.name, r.organisation_id, r.github_installation_id
    FROM repository_owners r JOIN input i
      ON lower(r.host) = lower($1) AND lower(r.owner) = lower(i.owner) AND lower(r.name) = lower(i.name)
  ), applied AS (
    INSERT INTO repository_owners AS r (host, owner, name, organisation_id, claimed_by, github_installation_id)
    SELECT $1, owner, name, $4, 'github-installation', $5 FROM input
    ON CONFLICT ((lower(host)), (lower(owner)), (lower(name))) DO UPDATE
      SET organisation_id = EXCLUDED.organisation_id,
          claimed_by = EXCLUDED.claimed_by,
          github_installation_id = EXCLUDED.github_installation_id,
          claimed_at = CASE WHEN r.github_installation_id IS NOT DISTINCT FROM EXCLUDED.github_installation_id
                            THEN r.claimed_at ELSE now() END
      WHERE r.organisation_id = EXCLUDED.organisation_id OR r.github_installation_id IS NOT NULL OR $6::boolean
    RETURNING r.owner, r.name
  )
  SELECT i.owner, i.name, p.organisation_id AS prior_organisation, p.github_installation_id AS prior_installation,
         EXISTS (SELECT 1 FROM applied a WHERE lower(a.owner) = lower(i.owner) AND lower(a.name) = lower(i.name))
           AS applied
  FROM input i
  LEFT JOIN prior p ON lower(p.owner) = lower(i.owner) AND lower(p.name) = lower(i.name)`;

export function createGitHubInstallationStore(pool: Pool): GitHubInstallationStore {
  /** The linked installation, locked against unlinking and other syncs until the transaction ends. */
  async function lockLinked(client: PoolClient, installationId: number) {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `github-installation/${installationId}`,
    ]);
    const { rows } = await client.query<{ organisation_id: string; host: string; linked_by: LinkSource }>(
      'SELECT organisation_id, host, linked_by FROM github_installations WHERE installation_id = $1 FOR SHARE',
      [installationId],
    );
    if (!rows[0]) throw new InstallationNotLinkedError(installationId);
    return rows[0];
  }

  async function cover(
    client: PoolClient,
    installationId: number,
    repos: readonly Covered[],
  ): Promise<Omit<SyncResult, 'removed' | 'covered'>> {
    const linked = await lockLinked(client, installationId);
    const result = { added: 0, takenOver: [] as RepositoryKey[], ownedElsewhere: [] as RepositoryKey[] };
    if (repos.length === 0) return result;
    const { rows } = await client.query<{
      owner: string;
      name: string;
      prior_organisation: string | null;
      prior_installation: string | null;
      applied: boolean;
    }>(UPSERT_COVERED, [
      linked.host,
      repos.map((r) => r.owner),
      repos.map((r) => r.name),
      linked.organisation_id,
      installationId,
      linked.linked_by === 'operator',
    ]);
    for (const row of rows) {
      const repo = { host: linked.host, owner: row.owner, name: row.name };
      if (!row.applied) result.ownedElsewhere.push(repo);
      else if (row.prior_organisation === null) result.added++;
      else if (row.prior_organisation !== linked.organisation_id) result.takenOver.push(repo);
      else if (row.prior_installation === null || Number(row.prior_installation) !== installationId)
        result.added++;
    }
    return result;
  }

  const countCovered = async (client: PoolClient, installationId: number) =>
    (
      await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM repository_owners WHERE github_installation_id = $1',
        [installationId],
      )
    ).rows[0]!.n;

  return {
    async link(organisationId, installation, source) {
      const inserted = await pool.query(
        `INSERT INTO github_installations
           (installation_id, organisation_id, host, account_login, linked_by, suspended_at)
         VALUES ($1, $2, lower($3), $4, $5, $6) ON CONFLICT (installation_id) DO NOTHING`,
        [
          installation.installationId,
          organisationId,
          installation.host,
          installation.accountLogin,
          source,
          installation.suspendedAt,
        ],
      );
      if (inserted.rowCount === 1) return { kind: 'linked' };
      // Already linked: refresh what GitHub said, only for the organisation it is linked to.
      const updated = await pool.query(
        `UPDATE github_installations SET account_login = $3, suspended_at = $4
         WHERE installation_id = $1 AND organisation_id = $2`,
        [installation.installationId, organisationId, installation.accountLogin, installation.suspendedAt],
      );
      return updated.rowCount === 1 ? { kind: 'already_yours' } : { kind: 'taken' };
    },

    async unlink(installationId) {
      return inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `github-installation/${installationId}`,
        ]);
        const r = await client.query('DELETE FROM github_installations WHERE installation_id = $1', [
          installationId,
        ]);
        return r.rowCount === 1;
      });
    },

    async find(installationId) {
      const { rows } = await pool.query<InstallationRow>(
        `${SELECT_INSTALLATIONS} WHERE g.installation_id = $1`,
        [installationId],
      );
      return rows[0] ? toInstallation(rows[0]) : null;
    },

    async list(organisationId) {
      const { rows } = await pool.query<InstallationRow>(
        `${SELECT_INSTALLATIONS} WHERE $1::uuid IS NULL OR g.organisation_id = $1
         ORDER BY o.slug, g.installation_id`,
        [organisationId ?? null],
      );
      return rows.map(toInstallation);
    },

    async setSuspended(installationId, at) {
      const r = await pool.query(
        'UPDATE github_installations SET suspended_at = $2 WHERE installation_id = $1',
        [installationId, at],
      );
      return r.rowCount === 1;
    },

    syncRepositories: (installationId, repos) =>
      inTransaction(pool, async (client) => {
        const covered = await cover(client, installationId, repos);
        const removed = await client.query(
          `DELETE FROM repository_owners r WHERE r.github_installation_id = $1
           AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS t(o, n)
                           WHERE lower(t.o) = lower(r.owner) AND lower(t.n) = lower(r.name))`,
          [installationId, repos.map((r) => r.owner), repos.map((r) => r.name)],
        );
        return {
          ...covered,
          removed: removed.rowCount ?? 0,
          covered: await countCovered(client, installationId),
        };
      }),

    addRepositories: (installationId, repos) =>
      inTransaction(pool, async (client) => {
        const covered = await cover(client, installationId, repos);
        return { ...covered, removed: 0, covered: await countCovered(client, installationId) };
      }),

    removeRepositories: (installationId, repos) =>
      inTransaction(pool, async (client) => {
        await lockLinked(client, installationId);
        const r = await client.query(
          `DELETE FROM repository_owners r WHERE r.github_installation_id = $1
           AND EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS t(o, n)
                       WHERE lower(t.o) = lower(r.owner) AND lower(t.n) = lower(r.name))`,
          [installationId, repos.map((r) => r.owner), repos.map((r) => r.name)],
        );
        return r.rowCount ?? 0;
      }),
  };
}

/**
 * Ownership while a GitHub App is configured: a repository of `host` (case-insensitive) is the
 * organisation's only through an installation linked to it; other hosts ask `inner`.
 */
export function installationOwnership(
  pool: Pool,
  host: string,
  inner: RepositoryOwnership,
): RepositoryOwnership {
  const gitHubHost = host.toLowerCase();
  return {
    async owns(organisationId, repo) {
      if (repo.host.toLowerCase() !== gitHubHost) return inner.owns(organisationId, repo);
      const r = await pool.query({
        name: 'repository-owns-through-installation',
        text: `SELECT 1 FROM repository_owners r
               JOIN github_installations g ON g.installation_id = r.github_installation_id
               WHERE lower(r.host) = lower($1) AND lower(r.owner) = lower($2) AND lower(r.name) = lower($3)
                 AND r.organisation_id = $4 AND g.organisation_id = $4`,
        values: [repo.host, repo.owner, repo.name, organisationId],
      });
      return r.rowCount === 1;
    },
  };
}

/** True when `repo` is on the host a configured GitHub App serves. */
export const isGitHubRepository = (repo: RepositoryKey, host: string | undefined) =>
  host !== undefined && repo.host.toLowerCase() === host.toLowerCase();

/**
 * The linked, unsuspended installation that covers `repo` (how the worker authenticates to it), or
 * null: a repository no linked installation covers is not served, whatever else says so.
 */
export async function installationCovering(pool: Pool, repo: RepositoryKey): Promise<number | null> {
  const r = await pool.query<{ installation_id: string }>({
    name: 'installation-covering-repository',
    text: `SELECT g.installation_id FROM repository_owners r
           JOIN github_installations g ON g.installation_id = r.github_installation_id
           WHERE lower(r.host) = lower($1) AND lower(r.owner) = lower($2) AND lower(r.name) = lower($3)
             AND g.organisation_id = r.organisation_id AND g.suspended_at IS NULL`,
    values: [repo.host, repo.owner, repo.name],
  });
  return r.rows[0] ? Number(r.rows[0].installation_id) : null;
}
