/**
 * PrRecordStore: the PR half of the read projection (migrations/0023_read-projection.sql, ADR 0016).
 * The activities that deliver notices to a PR's workflow fold the same notices into its row here with
 * the workflow's own fold (contract/pr-record.ts); listPullRequests pages through the rows.
 *
 * Invariants:
 * - A row changes only under its row lock (SELECT … FOR UPDATE after an insert that may do nothing),
 *   so two deliveries of one submission fold one after the other, as signals to its workflow do.
 * - Folding is idempotent: notices already applied are ignored, so a retried delivery changes nothing.
 * - The listing order is stable: open submissions first (newest submitted first), then the concluded
 *   ones, latest first; ties by submission id. The cursor is the last row's position in that order.
 */
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../../stores/transaction';
import {
  foldRefresh,
  foldTransition,
  newRecordFold,
  type PrDetailsRefresh,
  type PrTransitionNotice,
  type PullRequestRecord,
  type PullRequestWorkflowInput,
  type QueueKey,
  type RecordFold,
} from '../../contract';
import { isTerminal } from '../../engine';

/** Where a listing page starts: after this row (the previous page's last). */
export type ListingPosition = [listedAt: string, submittedAt: string, submissionId: string];

export interface RecordListing {
  state?: string;
  /** Concluded at or after (epoch ms). */
  since?: number;
  /** Concluded before (epoch ms). */
  until?: number;
  after?: ListingPosition;
  take: number;
}

export interface RecordPage {
  records: PullRequestRecord[];
  /** The last row's position when more rows follow; null after the last page. */
  next: ListingPosition | null;
}

export interface PrRecordStore {
  /** Folds transition notices of one submission into its row (made by the first). */
  transitions(workflow: RecordOwner, notices: readonly PrTransitionNotice[]): Promise<void>;
  /** Folds a details refresh into a submission's row; nothing when it has none. */
  refresh(workflow: RecordOwner, refresh: PrDetailsRefresh): Promise<void>;
  list(key: QueueKey, listing: RecordListing): Promise<RecordPage>;
}

interface FoldRow {
  applied: number;
  record: PullRequestRecord;
  pending: PrTransitionNotice[];
  early: PrDetailsRefresh | null;
}

const queueParams = (key: QueueKey) => [
  key.organisationId,
  key.repo.host,
  key.repo.owner,
  key.repo.name,
  key.targetBranch,
];

const iso = (ms: number) => new Date(ms).toISOString();

/** The workflow of a submission, as far as its row needs it. */
export type RecordOwner = Pick<PullRequestWorkflowInput, 'key' | 'prNumber' | 'submissionId' | 'submittedAt'>;

/**
 * Runs `change` on the submission's fold under its row lock and stores what it left, inside the
 * caller's transaction `db`. With `create`, a submission without a row gets one first.
 */
async function folding(
  db: PoolClient,
  owner: RecordOwner,
  create: boolean,
  change: (f: RecordFold) => void,
): Promise<void> {
  const fresh = newRecordFold(owner);
  if (create)
    await db.query(
      `INSERT INTO pr_records (submission_id, organisation_id, host, owner, name, target_branch,
         pr_number, submitted_at, state, applied, record)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10::jsonb)
       ON CONFLICT (submission_id) DO NOTHING`,
      [
        owner.submissionId,
        ...queueParams(owner.key),
        owner.prNumber,
        iso(owner.submittedAt),
        fresh.record.state,
        JSON.stringify(fresh.record),
      ],
    );
  const { rows } = await db.query<FoldRow>(
    `SELECT applied, record, pending, early FROM pr_records WHERE submission_id = $1 FOR UPDATE`,
    [owner.submissionId],
  );
  const row = rows[0];
  if (!row) return;
  const fold: RecordFold = {
    record: row.record,
    applied: row.applied,
    pending: row.pending,
    early: row.early,
  };
  change(fold);
  const { record } = fold;
  await db.query(
    `UPDATE pr_records SET state = $2, concluded_at = $3, applied = $4, record = $5::jsonb,
       pending = $6::jsonb, early = $7::jsonb
     WHERE submission_id = $1`,
    [
      owner.submissionId,
      record.state,
      isTerminal(record.state) ? iso(record.stateChangedAt) : null,
      fold.applied,
      JSON.stringify(record),
      JSON.stringify(fold.pending),
      fold.early === null ? null : JSON.stringify(fold.early),
    ],
  );
}

/**
 * Folds transition notices of several submissions inside the caller's transaction (the event log's
 * append: its durable copy of every notice). Rows are locked in submission id order, so two such
 * transactions cannot deadlock.
 */
export async function foldTransitionsIn(
  db: PoolClient,
  batches: readonly { owner: RecordOwner; notices: readonly PrTransitionNotice[] }[],
): Promise<void> {
  const sorted = [...batches].sort((a, b) =>
    a.owner.submissionId < b.owner.submissionId ? -1 : a.owner.submissionId > b.owner.submissionId ? 1 : 0,
  );
  for (const { owner, notices } of sorted)
    if (notices.length > 0)
      await folding(db, owner, true, (f) => {
        for (const n of notices) if (n.submissionId === owner.submissionId) foldTransition(f, n);
      });
}

export function createPrRecordStore(pool: Pool): PrRecordStore {
  return {
    async transitions(workflow, notices) {
      if (notices.length === 0) return;
      await inTransaction(pool, (db) => foldTransitionsIn(db, [{ owner: workflow, notices }]), {
        retryConflicts: true,
      });
    },

    async refresh(workflow, refresh) {
      if (refresh.submissionId !== workflow.submissionId) return;
      await inTransaction(pool, (db) => folding(db, workflow, false, (f) => void foldRefresh(f, refresh)), {
        retryConflicts: true,
      });
    },

    async list(key, listing) {
      const params: unknown[] = queueParams(key);
      const where = [
        'organisation_id = $1',
        'host = $2',
        'owner = $3',
        'name = $4',
        'target_branch = $5',
        'applied > 0',
      ];
      const param = (v: unknown) => {
        params.push(v);
        return `$${params.length}`;
      };
      if (listing.state !== undefined) where.push(`state = ${param(listing.state)}`);
      if (listing.since !== undefined || listing.until !== undefined) where.push('concluded_at IS NOT NULL');
      if (listing.since !== undefined) where.push(`concluded_at >= ${param(iso(listing.since))}`);
      if (listing.until !== undefined) where.push(`concluded_at < ${param(iso(listing.until))}`);
      if (listing.after) {
        const [listedAt, submittedAt, id] = listing.after;
        where.push(
          `(listed_at, submitted_at, submission_id) < (${param(listedAt)}::timestamptz, ${param(submittedAt)}::timestamptz, ${param(id)})`,
        );
      }
      const { rows } = await pool.query<{
        record: PullRequestRecord;
        listed_at: string;
        submitted_at: string;
        submission_id: string;
      }>(
        `SELECT record, listed_at::text, submitted_at::text, submission_id FROM pr_records
         WHERE ${where.join(' AND ')}
         ORDER BY listed_at DESC, submitted_at DESC, submission_id DESC
         LIMIT ${param(listing.take + 1)}`,
        params,
      );
      const page = rows.slice(0, listing.take);
      const last = page.at(-1);
      return {
        records: page.map((r) => r.record),
        next:
          rows.length > listing.take && last ? [last.listed_at, last.submitted_at, last.submission_id] : null,
      };
    },
  };
}
