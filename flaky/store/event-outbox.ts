/**
 * The outbox of the flaky-test webhook events (migrations/0007_test-case-event-outbox.sql). The
 * writers (reclassify.ts, test-case-admin.ts) add rows in the transaction of the change itself, and
 * only while the organisation has an enabled subscription to the type; the publisher
 * (../events.ts) reads them after the commit, turns them into deliveries and deletes them.
 */
import { type TestStatus } from '../classification';
import { type QuarantineOverride } from '../quarantine';
import { type Queryable } from './db';

/** Called after a commit with the outbox rows it wrote; must not throw (the publisher's `published`). */
export type OutboxSink = (outboxPks: readonly string[]) => void;

export type TestCaseEventType = 'test_case.status_changed' | 'test_case.quarantining_setting_changed';

/** SQL: the organisation `org` (an expression) has an enabled subscription that takes `type`. */
export function subscribedTo(type: TestCaseEventType, org: string): string {
  return `EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.organisation_id = ${org} AND s.enabled
    AND (cardinality(s.event_types) = 0 OR '${type}' = ANY (s.event_types)))`;
}

export type OutboxRow =
  | {
      readonly pk: string;
      readonly organisationId: string;
      readonly testPk: string;
      readonly type: 'test_case.status_changed';
      readonly sourcePk: string;
      readonly previous: TestStatus;
      readonly current: TestStatus;
      readonly reason: string;
      readonly at: Date;
    }
  | {
      readonly pk: string;
      readonly organisationId: string;
      readonly testPk: string;
      readonly type: 'test_case.quarantining_setting_changed';
      readonly sourcePk: string;
      readonly previous: QuarantineOverride;
      readonly current: QuarantineOverride;
      readonly reason: string | null;
      readonly actor: string;
      readonly at: Date;
    };

interface Row {
  pk: string;
  organisation_id: string;
  test_pk: string;
  event_type: TestCaseEventType;
  source_pk: string;
  previous: string | null;
  current: string;
  reason: string | null;
  actor: string | null;
  at: Date;
}

/** The given rows with the change each announces; rows already dispatched are left out. */
export async function loadOutbox(db: Queryable, pks: readonly string[]): Promise<OutboxRow[]> {
  if (pks.length === 0) return [];
  const { rows } = await db.query<Row>(
    `SELECT o.pk, o.organisation_id, o.test_pk, o.event_type, o.source_pk,
            coalesce(h.from_status, q.previous) AS previous, coalesce(h.to_status, q.override) AS current,
            coalesce(h.reason, q.reason) AS reason, q.set_by AS actor, coalesce(h.status_at, q.set_at) AS at
       FROM test_case_event_outbox o
       LEFT JOIN test_status_history h ON o.event_type = 'test_case.status_changed' AND h.pk = o.source_pk
       LEFT JOIN quarantine_override_history q
         ON o.event_type = 'test_case.quarantining_setting_changed' AND q.pk = o.source_pk
      WHERE o.pk = ANY($1::bigint[]) AND coalesce(h.pk, q.pk) IS NOT NULL
      ORDER BY o.pk`,
    [pks],
  );
  return rows.map((r): OutboxRow => {
    const base = { pk: r.pk, organisationId: r.organisation_id, testPk: r.test_pk, sourcePk: r.source_pk };
    return r.event_type === 'test_case.status_changed'
      ? {
          ...base,
          type: r.event_type,
          previous: r.previous as TestStatus,
          current: r.current as TestStatus,
          reason: r.reason ?? '',
          at: r.at,
        }
      : {
          ...base,
          type: r.event_type,
          previous: r.previous as QuarantineOverride,
          current: r.current as QuarantineOverride,
          reason: r.reason,
          actor: r.actor ?? '',
          at: r.at,
        };
  });
}

/**
 * Rows written at least `minAgeMs` ago by the database's clock, oldest first, after `afterPk` (the
 * sweep of rows left behind).
 */
export async function staleOutbox(
  db: Queryable,
  minAgeMs: number,
  afterPk: string,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ pk: string }>(
    `SELECT pk FROM test_case_event_outbox
      WHERE created_at <= now() - $1::float8 * interval '1 millisecond' AND pk > $2::bigint
      ORDER BY pk LIMIT $3`,
    [minAgeMs, afterPk, limit],
  );
  return rows.map((r) => r.pk);
}

export async function deleteOutbox(db: Queryable, pks: readonly string[]): Promise<void> {
  if (pks.length === 0) return;
  await db.query(`DELETE FROM test_case_event_outbox WHERE pk = ANY($1::bigint[])`, [pks]);
}
