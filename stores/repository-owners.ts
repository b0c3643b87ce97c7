/**
 * Repository ownership (docs/adr/0006-repository-ownership.md): which organisation a repository
 * (host, owner, name) belongs to. The API checks it before every merge-queue, status, flaky-test and
 * metrics request; the worker checks it again before it writes to a repository.
 *
 * Invariants:
 * - A repository has at most one owner, compared case-insensitively (a unique index enforces it, so
 *   two concurrent claims cannot both win).
 * - A claim never moves a repository away from its owner; only `transfer` (operators) does.
 * - An organisation owns at most `maxPerOrganisation` repositories (a claim past it is refused).
 */
import type { Pool } from 'pg';
import type { RepositoryKey } from '../contract';
import { inTransaction } from './transaction';

/** How a claim was made, kept for the operator's listing. */
export type ClaimSource = 'operator' | 'api' | 'first-use';

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'already_yours' }
  | { kind: 'taken' }
  | { kind: 'limit_reached'; limit: number };

export interface OwnedRepository extends RepositoryKey {
  organisationId: string;
  organisationSlug: string;
  claimedBy: string;
  claimedAt: Date;
  /** The id fork PRs' uploads authenticate with (migration 0015); a new one after a change of owner. */
  publicId: string;
}

/** The read the request path needs, as a narrow port (tests and the worker pass the real store). */
export interface RepositoryOwnership {
  owns(organisationId: string, repo: RepositoryKey): Promise<boolean>;
}

export interface RepositoryOwnerStore extends RepositoryOwnership {
  claim(organisationId: string, repo: RepositoryKey, source: ClaimSource): Promise<ClaimResult>;
  list(organisationId?: string): Promise<OwnedRepository[]>;
  /** Gives a repository to another organisation (operators only); false if it has no owner. */
  transfer(repo: RepositoryKey, organisationId: string): Promise<boolean>;
  /** Removes the claim; false if there was none. */
  remove(repo: RepositoryKey): Promise<boolean>;
}

export const DEFAULT_MAX_REPOSITORIES_PER_ORGANISATION = 1_000;

const MATCHES = 'lower(host) = lower($1) AND lower(owner) = lower($2) AND lower(name) = lower($3)';

interface OwnerRow {
  host: string;
  owner: string;
  name: string;
  organisation_id: string;
  slug: string;
  claimed_by: string;
  claimed_at: Date;
  public_id: string;
}

export function createRepositoryOwnerStore(
  pool: Pool,
  opts: { maxPerOrganisation?: number } = {},
): RepositoryOwnerStore {
  const limit = opts.maxPerOrganisation ?? DEFAULT_MAX_REPOSITORIES_PER_ORGANISATION;
  async function owns(organisationId: string, repo: RepositoryKey): Promise<boolean> {
    const r = await pool.query({
      name: 'repository-owns',
      text: `SELECT 1 FROM repository_owners WHERE ${MATCHES} AND organisation_id = $4`,
      values: [repo.host, repo.owner, repo.name, organisationId],
    });
    return r.rowCount === 1;
  }
  return {
    owns,

    async claim(organisationId, repo, source) {
      // The count and the insert run in one statement under a per-organisation advisory lock, so two
      // claims racing at the limit cannot both pass it.
      const result = await inTransaction(pool, async (client): Promise<ClaimResult | { kind: 'raced' }> => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `repository-claims/${organisationId}`,
        ]);
        const current = await client.query<{ organisation_id: string }>(
          `SELECT organisation_id FROM repository_owners WHERE ${MATCHES}`,
          [repo.host, repo.owner, repo.name],
        );
        const owner = current.rows[0]?.organisation_id;
        if (owner !== undefined)
          return owner === organisationId ? { kind: 'already_yours' } : { kind: 'taken' };
        const count = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM repository_owners WHERE organisation_id = $1',
          [organisationId],
        );
        if ((count.rows[0]?.n ?? 0) >= limit) return { kind: 'limit_reached', limit };
        const inserted = await client.query(
          `INSERT INTO repository_owners (host, owner, name, organisation_id, claimed_by)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [repo.host, repo.owner, repo.name, organisationId, source],
        );
        return inserted.rowCount === 1 ? { kind: 'claimed' } : { kind: 'raced' };
      });
      if (result.kind !== 'raced') return result;
      // Another organisation's claim committed between our read and insert.
      return (await owns(organisationId, repo)) ? { kind: 'already_yours' } : { kind: 'taken' };
    },

    async list(organisationId) {
      const r = await pool.query<OwnerRow>(
        `SELECT r.host, r.owner, r.name, r.organisation_id, o.slug, r.claimed_by, r.claimed_at, r.public_id
         FROM repository_owners r JOIN organisations o ON o.id = r.organisation_id
         WHERE $1::uuid IS NULL OR r.organisation_id = $1
         ORDER BY o.slug, lower(r.host), lower(r.owner), lower(r.name)`,
        [organisationId ?? null],
      );
      return r.rows.map((row) => ({
        host: row.host,
        owner: row.owner,
        name: row.name,
        organisationId: row.organisation_id,
        organisationSlug: row.slug,
        claimedBy: row.claimed_by,
        claimedAt: row.claimed_at,
        publicId: row.public_id,
      }));
    },

    async transfer(repo, organisationId) {
      const r = await pool.query(
        `UPDATE repository_owners SET organisation_id = $4, claimed_by = 'operator', claimed_at = now()
         WHERE ${MATCHES}`,
        [repo.host, repo.owner, repo.name, organisationId],
      );
      return r.rowCount === 1;
    },

    async remove(repo) {
      const r = await pool.query(`DELETE FROM repository_owners WHERE ${MATCHES}`, [
        repo.host,
        repo.owner,
        repo.name,
      ]);
      return r.rowCount === 1;
    },
  };
}

/**
 * The worker's view of ownership: a positive answer is trusted for `freshMs` (one lookup per queue
 * and repository every few minutes, not one per git call), and while PostgreSQL cannot answer, a
 * positive answer up to `staleMs` old still counts, so an outage does not fail the builds and merges
 * of queues whose ownership was checked shortly before. A negative answer is never remembered: a
 * repository claimed a moment ago is writable at once. A transfer takes effect within `freshMs`.
 */
export function rememberingOwnership(
  inner: RepositoryOwnership,
  opts: { freshMs?: number; staleMs?: number; now?: () => number } = {},
): RepositoryOwnership {
  const freshMs = opts.freshMs ?? 5 * 60_000;
  const staleMs = opts.staleMs ?? 60 * 60_000;
  const now = opts.now ?? Date.now;
  const confirmed = new Map<string, number>();
  const keyOf = (organisationId: string, repo: RepositoryKey) =>
    JSON.stringify([
      organisationId,
      repo.host.toLowerCase(),
      repo.owner.toLowerCase(),
      repo.name.toLowerCase(),
    ]);
  return {
    async owns(organisationId, repo) {
      const key = keyOf(organisationId, repo);
      const at = confirmed.get(key);
      if (at !== undefined && now() - at < freshMs) return true;
      let owned: boolean;
      try {
        owned = await inner.owns(organisationId, repo);
      } catch (err) {
        if (at !== undefined && now() - at < staleMs) return true;
        throw err;
      }
      if (owned) {
        // Bounded: entries past staleMs are useless, and a worker serves a bounded set of queues.
        if (confirmed.size >= 10_000) confirmed.clear();
        confirmed.set(key, now());
      } else confirmed.delete(key);
      return owned;
    },
  };
}
