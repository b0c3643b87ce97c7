/**
 * Run bases (issue 25, ADR 0025): the full git bundle of one commit of a repository, staged once in
 * PostgreSQL and shared by every run whose content is a thin bundle on top of it
 * (store/run-content.ts). An executor keeps the bases it fetched in its object cache
 * (executor/object-cache.ts), so a repository's history crosses the wire once per basis, not per run.
 *
 * Invariants:
 * - A basis is content-addressed by (organisation, repository, sha): staging one that is there already
 *   stores nothing (two workers at once: the first keeps it). One organisation never reads another's.
 * - A basis larger than `maxBytes` (RAILYARD_RUN_CONTENT_MAX_MB) is refused before anything is stored.
 * - Bundles are written and read in CHUNK_BYTES pieces.
 * - A basis goes only when no run content references it (foreign key; `use` locks its row while the
 *   run's content is inserted) and it went unused for `retentionMs`; `sweep` deletes at most a batch.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Pool, PoolClient } from 'pg';
import type { RepositoryKey } from '../../contract';
import { inTransaction } from '../../stores/transaction';
import { RunContentTooLarge } from './content-too-large';

export const BASIS_CHUNK_BYTES = 1024 * 1024;
/** How long an unreferenced basis is kept for the next run: a quiet day must not re-stage history. */
export const DEFAULT_BASIS_RETENTION_MS = 3 * 24 * 60 * 60_000;
/** The newest bases a run may build on: enough for a few live target branches, bounded work per run. */
export const BASIS_CANDIDATES = 8;
const SWEEP_BATCH = 20;

export interface StagedBasis {
  id: string;
  sha: string;
  sizeBytes: number;
}

export interface RunBaseStore {
  /** The repository's newest bases, newest first (at most BASIS_CANDIDATES). */
  candidates(organisationId: string, repo: RepositoryKey): Promise<string[]>;
  /** Stores the bundle of `sha` unless it is there; answers the bytes stored (0 when it was there). */
  stage(input: {
    organisationId: string;
    repo: RepositoryKey;
    sha: string;
    bundlePath: string;
  }): Promise<{ storedBytes: number }>;
  /** One chunk of a basis (seq from 0); null past the last. */
  chunk(basisId: string, seq: number): Promise<Buffer | null>;
  /** Deletes up to a batch of bases no run references and unused for the retention. */
  sweep(): Promise<number>;
}

/**
 * The basis row, locked for the caller's transaction and marked used; null when it is gone (swept).
 * Run content is inserted in the same transaction, so a sweep never deletes a basis a run is given.
 */
export async function useBasis(
  client: PoolClient,
  organisationId: string,
  repo: RepositoryKey,
  sha: string,
): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(
    `UPDATE run_bases SET last_used_at = now()
      WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4 AND sha = $5
      RETURNING id`,
    [organisationId, repo.host, repo.owner, repo.name, sha],
  );
  return rows[0]?.id ?? null;
}

export function createRunBaseStore(
  pool: Pool,
  opts: { maxBytes: number; retentionMs?: number },
): RunBaseStore {
  const retentionMs = opts.retentionMs ?? DEFAULT_BASIS_RETENTION_MS;
  return {
    async candidates(organisationId, repo) {
      const { rows } = await pool.query<{ sha: string }>(
        `SELECT sha FROM run_bases WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4
          ORDER BY created_at DESC, id DESC LIMIT $5`,
        [organisationId, repo.host, repo.owner, repo.name, BASIS_CANDIDATES],
      );
      return rows.map((r) => r.sha);
    },

    async stage({ organisationId, repo, sha, bundlePath }) {
      const size = (await stat(bundlePath)).size;
      if (size > opts.maxBytes)
        throw new RunContentTooLarge(size, opts.maxBytes, "the repository's basis bundle");
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO run_bases (organisation_id, host, owner, name, sha, size_bytes)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
          [organisationId, repo.host, repo.owner, repo.name, sha, size],
        );
        const id = rows[0]?.id;
        if (id === undefined) return { storedBytes: 0 };
        let seq = 0;
        for await (const piece of createReadStream(bundlePath, { highWaterMark: BASIS_CHUNK_BYTES })) {
          await client.query('INSERT INTO run_basis_chunks (basis_id, seq, bytes) VALUES ($1, $2, $3)', [
            id,
            seq,
            piece as Buffer,
          ]);
          seq += 1;
        }
        return { storedBytes: size };
      });
    },

    async chunk(basisId, seq) {
      const { rows } = await pool.query<{ bytes: Buffer }>(
        'SELECT bytes FROM run_basis_chunks WHERE basis_id = $1 AND seq = $2',
        [basisId, seq],
      );
      return rows[0]?.bytes ?? null;
    },

    async sweep() {
      // SKIP LOCKED: a basis a worker is giving a run right now (useBasis) is left for a later sweep.
      const { rowCount } = await pool.query(
        `DELETE FROM run_bases WHERE id IN (
           SELECT b.id FROM run_bases b
            WHERE b.last_used_at < now() - make_interval(secs => $1::double precision)
              AND NOT EXISTS (SELECT 1 FROM run_contents c WHERE c.basis_id = b.id)
            LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [retentionMs / 1000, SWEEP_BATCH],
      );
      return rowCount ?? 0;
    },
  };
}
