/**
 * Run content: how a test run's code reaches an executor that has no access to the git root, the
 * mirrors or the database (issue 17). The control plane's worker stages a git bundle of the tested
 * commit in PostgreSQL under a random bearer token; the API serves it to whoever presents the token
 * (api/routes/executor/run-content.ts); the executor clones from it.
 *
 * Invariants:
 * - A token names one commit of one repository of one organisation, for one run: it is 32 random
 *   bytes, only its SHA-256 is stored, and it stops working when the run ends (`drop`) or at its expiry.
 * - A bundle larger than `maxBytes` is refused before anything is stored (RunContentTooLarge).
 * - Bundles are written and read in CHUNK_BYTES pieces: no side holds a whole bundle in memory.
 * - Staging also sweeps up to SWEEP_BATCH expired bundles (runs whose workflow never dropped them),
 *   and a batch of unreferenced, unused bases (store/run-bases.ts) when given the base store.
 * - Content is full (a bundle of the tested commit and its history, `basis` null) or thin (issue 25,
 *   ADR 0025): a bundle `<tested> ^<basis>` whose prerequisite is a staged basis of the same
 *   organisation and repository. The basis row is locked while the content is inserted, so the basis
 *   outlives the content (BasisGone when it was swept first: the caller stages it again).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Pool } from 'pg';
import { inTransaction } from '../../stores/transaction';
import type { RepositoryKey } from '../../contract';
import { DEFAULT_RUN_CONTENT_MAX_BYTES } from '../../executor/content-fetch';
import { RunContentTooLarge } from './content-too-large';
import { type RunBaseStore, type StagedBasis, useBasis } from './run-bases';

export { DEFAULT_RUN_CONTENT_MAX_BYTES, RunContentTooLarge };

export const CHUNK_BYTES = 1024 * 1024;
export const DEFAULT_RUN_CONTENT_TTL_MS = 6 * 60 * 60_000;
const SWEEP_BATCH = 20;

export interface StagedContent {
  organisationId: string;
  runId: string;
  repo: RepositoryKey;
  sha: string;
  sizeBytes: number;
  /** The basis a thin bundle needs; null for a full bundle. */
  basis: StagedBasis | null;
}

/** The basis named for thin content was swept before the content was stored. */
export class BasisGone extends Error {
  override readonly name = 'BasisGone';
}

export interface RunContentStore {
  /**
   * Stores the bundle file and answers the bearer token that reads it; with `basisSha` the bundle is
   * thin and needs that staged basis of the same organisation and repository (BasisGone when absent).
   */
  stage(
    input: Omit<StagedContent, 'sizeBytes' | 'basis'> & {
      bundlePath: string;
      ttlMs?: number;
      basisSha?: string;
    },
  ): Promise<string>;
  /** What a token names, or null when it is unknown, dropped or expired. */
  lookup(token: string): Promise<StagedContent | null>;
  /** One chunk (seq from 0); null past the last. */
  chunk(token: string, seq: number): Promise<Buffer | null>;
  /** One chunk of the basis the token's thin content needs (seq from 0); null past the last or none. */
  basisChunk(token: string, seq: number): Promise<Buffer | null>;
  /** Ends every token of the run. */
  drop(runId: string): Promise<void>;
}

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function createRunContentStore(
  pool: Pool,
  opts: { maxBytes?: number; ttlMs?: number; bases?: RunBaseStore } = {},
): RunContentStore {
  const maxBytes = opts.maxBytes ?? DEFAULT_RUN_CONTENT_MAX_BYTES;
  const defaultTtlMs = opts.ttlMs ?? DEFAULT_RUN_CONTENT_TTL_MS;
  return {
    async stage({ organisationId, runId, repo, sha, bundlePath, ttlMs, basisSha }) {
      const size = (await stat(bundlePath)).size;
      if (size > maxBytes) throw new RunContentTooLarge(size, maxBytes);
      const token = randomBytes(32).toString('base64url');
      const digest = tokenDigest(token);
      await inTransaction(pool, async (client) => {
        let basisId: string | null = null;
        if (basisSha !== undefined) {
          basisId = await useBasis(client, organisationId, repo, basisSha);
          if (basisId === null) throw new BasisGone(`the basis ${basisSha} is no longer staged`);
        }
        await client.query(
          `INSERT INTO run_contents (token_sha256, organisation_id, test_run_id, host, owner, name, sha,
             size_bytes, expires_at, basis_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9::double precision), $10)`,
          [
            digest,
            organisationId,
            runId,
            repo.host,
            repo.owner,
            repo.name,
            sha,
            size,
            (ttlMs ?? defaultTtlMs) / 1000,
            basisId,
          ],
        );
        let seq = 0;
        for await (const piece of createReadStream(bundlePath, { highWaterMark: CHUNK_BYTES })) {
          await client.query(
            'INSERT INTO run_content_chunks (token_sha256, seq, bytes) VALUES ($1, $2, $3)',
            [digest, seq, piece as Buffer],
          );
          seq += 1;
        }
      });
      await pool.query(
        `DELETE FROM run_contents WHERE token_sha256 IN (SELECT token_sha256 FROM run_contents
           WHERE expires_at < now() LIMIT $1)`,
        [SWEEP_BATCH],
      );
      await opts.bases?.sweep();
      return token;
    },

    async lookup(token) {
      const { rows } = await pool.query<{
        organisation_id: string;
        test_run_id: string;
        host: string;
        owner: string;
        name: string;
        sha: string;
        size_bytes: string;
        basis_id: string | null;
        basis_sha: string | null;
        basis_size_bytes: string | null;
      }>(
        `SELECT c.organisation_id, c.test_run_id, c.host, c.owner, c.name, c.sha, c.size_bytes, c.basis_id,
                b.sha AS basis_sha, b.size_bytes AS basis_size_bytes
           FROM run_contents c LEFT JOIN run_bases b ON b.id = c.basis_id
          WHERE c.token_sha256 = $1 AND c.expires_at > now()`,
        [tokenDigest(token)],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        organisationId: row.organisation_id,
        runId: row.test_run_id,
        repo: { host: row.host, owner: row.owner, name: row.name },
        sha: row.sha,
        sizeBytes: Number(row.size_bytes),
        basis:
          row.basis_id === null
            ? null
            : { id: row.basis_id, sha: row.basis_sha!, sizeBytes: Number(row.basis_size_bytes) },
      };
    },

    async chunk(token, seq) {
      const { rows } = await pool.query<{ bytes: Buffer }>(
        'SELECT bytes FROM run_content_chunks WHERE token_sha256 = $1 AND seq = $2',
        [tokenDigest(token), seq],
      );
      return rows[0]?.bytes ?? null;
    },

    async basisChunk(token, seq) {
      // Through the content's own row: a token reads its basis and no other.
      const { rows } = await pool.query<{ bytes: Buffer }>(
        `SELECT ch.bytes FROM run_contents c JOIN run_basis_chunks ch ON ch.basis_id = c.basis_id
          WHERE c.token_sha256 = $1 AND c.expires_at > now() AND ch.seq = $2`,
        [tokenDigest(token), seq],
      );
      return rows[0]?.bytes ?? null;
    },

    async drop(runId) {
      await pool.query('DELETE FROM run_contents WHERE test_run_id = $1', [runId]);
    },
  };
}
