/**
 * What a PR command needs to know of its queue (its settings, and the head the PR is queued at), as the
 * read projection (migrations 0023/0024, ADR 0016) last stored it: the answer when the queue workflow
 * does not answer the command's lookup in time (pr-command-handler.ts).
 *
 * Why: a query is answered by a worker, after the queue's workflow task in flight and, after a worker
 * died, after its sticky queue is given up on. On a loaded 2-core host with replicas that took longer
 * than the lookup's deadline, and `/trunk merge` failed before reaching the queue (issue 27). The
 * projection is one indexed PostgreSQL read, answered whatever the workers do. It may be a settings
 * change behind: the API stores the view after each change it makes, but when that read failed the
 * view follows with the queue's next transition (ADR 0016); so it is the fallback, not the first source.
 *
 * Invariants:
 * - One statement per queue key: the queue's row and at most the one entry of `pr`, never the queue's
 *   whole view (a commenter without access reaches this lookup; its cost does not grow with the queue).
 * - The key is the caller's (built from the organisation that owns the delivery's installation): no
 *   other organisation's row can be read.
 * - `absent` when the projection holds no live view of that key (never projected, just created,
 *   deleted, or no such queue): the caller then asks the workflow, as getQueue's fallback does.
 */
import type { Pool } from '../../stores/db';
import type { QueueKey, QueueSettingsSnapshot } from '../../contract';

export type ProjectedQueueLookup =
  { kind: 'found'; settings: QueueSettingsSnapshot; queuedAt: string | null } | { kind: 'absent' };

export type ProjectedQueues = (key: QueueKey, pr: number) => Promise<ProjectedQueueLookup>;

export function createProjectedQueues(pool: Pick<Pool, 'query'>): ProjectedQueues {
  return async (key, pr) => {
    const { rows } = await pool.query<{ settings: QueueSettingsSnapshot | null; head_sha: string | null }>(
      `SELECT v.settings, e.entry->>'headSha' AS head_sha
         FROM queue_views v
         LEFT JOIN queue_view_entries e
           ON (e.organisation_id, e.host, e.owner, e.name, e.target_branch)
            = (v.organisation_id, v.host, v.owner, v.name, v.target_branch)
          AND e.pr_number = $6
        WHERE v.organisation_id = $1 AND v.host = $2 AND v.owner = $3 AND v.name = $4
          AND v.target_branch = $5 AND v.revision >= 0 AND NOT v.deleted`,
      [key.organisationId, key.repo.host, key.repo.owner, key.repo.name, key.targetBranch, pr],
    );
    const row = rows[0];
    // A row whose settings were never stored (a view older than migration 0024's columns) is no view.
    if (!row?.settings) return { kind: 'absent' };
    return { kind: 'found', settings: row.settings, queuedAt: row.head_sha };
  };
}
