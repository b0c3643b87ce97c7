/**
 * Public repository ids (migration 0015): the id Trunk's clients send as `x-trunk-public-repo-id` from
 * fork PRs, and the owner lookup the `x-forked-workflow-run-id` path needs. Both read
 * repository_owners, so only an owned repository can be reached and the answer always names its
 * current organisation.
 *
 * Invariants:
 * - A malformed id is never sent to PostgreSQL (PUBLIC_REPOSITORY_ID is checked first), so a caller
 *   cannot make the lookup fail or scan.
 * - `installationId` is set only when the row was conferred by an installation that is still linked
 *   to the same organisation (the GitHub ownership rule of ADR 0008).
 */
import type { Pool } from 'pg';
import type { RepositoryKey } from '../contract';
import type { Organisation } from './api-keys';

/** The shape of a public id: a UUID (gen_random_uuid), any case. */
export const PUBLIC_REPOSITORY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RepositoryHolding {
  organisation: Organisation;
  /** As the ownership row spells it. */
  repository: RepositoryKey;
  /** The linked installation the repository is owned through, if any. */
  installationId: number | null;
}

export interface RepositoryPublicIds {
  /** The repository a public id names, with its owner; null for an unknown or malformed id. */
  find(publicId: string): Promise<RepositoryHolding | null>;
  /** Who owns a repository, compared case-insensitively; null when nobody does. */
  ownerOf(repo: RepositoryKey): Promise<RepositoryHolding | null>;
}

interface Row {
  organisation_id: string;
  slug: string;
  host: string;
  owner: string;
  name: string;
  installation_id: string | null;
}

const SELECT = `
  SELECT r.organisation_id, o.slug, r.host, r.owner, r.name, g.installation_id
  FROM repository_owners r
  JOIN organisations o ON o.id = r.organisation_id
  LEFT JOIN github_installations g
    ON g.installation_id = r.github_installation_id AND g.organisation_id = r.organisation_id`;

const toHolding = (row: Row): RepositoryHolding => ({
  organisation: { id: row.organisation_id, slug: row.slug },
  repository: { host: row.host, owner: row.owner, name: row.name },
  installationId: row.installation_id === null ? null : Number(row.installation_id),
});

export function createRepositoryPublicIds(pool: Pool): RepositoryPublicIds {
  return {
    async find(publicId) {
      if (!PUBLIC_REPOSITORY_ID.test(publicId)) return null;
      const { rows } = await pool.query<Row>({
        name: 'repository-public-id-find',
        text: `${SELECT} WHERE r.public_id = $1::uuid`,
        values: [publicId.toLowerCase()],
      });
      return rows[0] ? toHolding(rows[0]) : null;
    },

    async ownerOf(repo) {
      const { rows } = await pool.query<Row>({
        name: 'repository-public-id-owner',
        text: `${SELECT} WHERE lower(r.host) = lower($1) AND lower(r.owner) = lower($2) AND lower(r.name) = lower($3)`,
        values: [repo.host, repo.owner, repo.name],
      });
      return rows[0] ? toHolding(rows[0]) : null;
    },
  };
}
