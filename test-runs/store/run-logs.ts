/**
 * Test-run logs in PostgreSQL (docs/adr/0011-run-logs.md): the worker stores the `command` runner's log
 * of a run when it ends; the API streams it back to the run's organisation.
 *
 * Rules:
 * - A log longer than `maxBytes` keeps its first quarter and its last three quarters of the budget
 *   (where a failure usually shows), joined by a line saying how many bytes were left out.
 * - Reading is by organisation and run id together: another organisation's run reads as absent.
 * - Reads come in chunks of at most READ_CHUNK_BYTES, so the API never holds a whole log in memory.
 * - Storing also deletes up to PRUNE_BATCH logs older than the retention.
 */
import type { Pool } from 'pg';
import type { RepositoryKey } from '../../contract';
import { boundedBuffer, boundedLog } from '../../executor/bounded-log';

export const DEFAULT_RUN_LOG_MAX_BYTES = 1024 * 1024;
export const DEFAULT_RUN_LOG_RETENTION_DAYS = 30;
export const READ_CHUNK_BYTES = 64 * 1024;
const PRUNE_BATCH = 100;

export interface StoredLogInfo {
  bytes: number;
  originalBytes: number;
  truncated: boolean;
}

export interface RunLogStore {
  /** Copies the log file of a run (bounded) into the database, replacing an earlier attempt's. */
  store(input: {
    organisationId: string;
    repo: RepositoryKey;
    runId: string;
    logPath: string;
  }): Promise<void>;
  /** Stores a log handed over in memory (an executor's run report), bounded like `store`. */
  storeContent(input: {
    organisationId: string;
    repo: RepositoryKey;
    runId: string;
    content: Buffer;
    /** The size of the whole log where it was written, when `content` is already a part of it. */
    originalBytes: number;
  }): Promise<void>;
  /** The stored log's size, or null when the organisation has no log for this run. */
  info(organisationId: string, runId: string): Promise<StoredLogInfo | null>;
  /** One chunk from `offset` (at most READ_CHUNK_BYTES); empty past the end. */
  read(organisationId: string, runId: string, offset: number): Promise<Buffer>;
}

export function createRunLogStore(
  pool: Pool,
  opts: { maxBytes?: number; retentionDays?: number } = {},
): RunLogStore {
  const maxBytes = opts.maxBytes ?? DEFAULT_RUN_LOG_MAX_BYTES;
  const retentionDays = opts.retentionDays ?? DEFAULT_RUN_LOG_RETENTION_DAYS;
  async function write(
    organisationId: string,
    repo: RepositoryKey,
    runId: string,
    content: Buffer,
    size: number,
  ): Promise<void> {
    await pool.query(
      `INSERT INTO test_run_logs
         (organisation_id, test_run_id, host, owner, name, content, original_bytes, truncated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (organisation_id, test_run_id) DO UPDATE SET content = EXCLUDED.content,
         original_bytes = EXCLUDED.original_bytes, truncated = EXCLUDED.truncated, stored_at = now()`,
      [organisationId, runId, repo.host, repo.owner, repo.name, content, size, size > content.length],
    );
    await pool.query(
      `DELETE FROM test_run_logs WHERE ctid IN (SELECT ctid FROM test_run_logs
         WHERE stored_at < now() - make_interval(days => $1) LIMIT $2)`,
      [retentionDays, PRUNE_BATCH],
    );
  }

  return {
    async store({ organisationId, repo, runId, logPath }) {
      const { content, size } = await boundedLog(logPath, maxBytes);
      await write(organisationId, repo, runId, content, size);
    },

    async storeContent({ organisationId, repo, runId, content, originalBytes }) {
      const bounded = content.length <= maxBytes ? content : boundedBuffer(content, maxBytes);
      await write(organisationId, repo, runId, bounded, Math.max(originalBytes, content.length));
    },

    async info(organisationId, runId) {
      const { rows } = await pool.query<{ bytes: number; original_bytes: string; truncated: boolean }>(
        `SELECT octet_length(content) AS bytes, original_bytes, truncated FROM test_run_logs
          WHERE organisation_id = $1 AND test_run_id = $2`,
        [organisationId, runId],
      );
      const row = rows[0];
      return row
        ? { bytes: Number(row.bytes), originalBytes: Number(row.original_bytes), truncated: row.truncated }
        : null;
    },

    async read(organisationId, runId, offset) {
      // substring on bytea is 1-based.
      const { rows } = await pool.query<{ chunk: Buffer | null }>(
        `SELECT substring(content FROM $3::int + 1 FOR $4::int) AS chunk FROM test_run_logs
          WHERE organisation_id = $1 AND test_run_id = $2`,
        [organisationId, runId, offset, READ_CHUNK_BYTES],
      );
      return rows[0]?.chunk ?? Buffer.alloc(0);
    },
  };
}
