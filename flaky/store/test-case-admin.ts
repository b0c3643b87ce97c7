/**
 * Changes people make to one test case: the quarantine override (who, when, why, until when and
 * its owner are kept on the row and appended to quarantine_override_history) and the linked ticket.
 * Both find the test by (repository, id), so a test of another repository or organisation does not
 * exist here.
 */
import { type Pool } from 'pg';
import { checkOverrideExpiry, type QuarantineOverride } from '../quarantine';
import { inTransaction, type Queryable } from './db';
import { type OutboxSink, subscribedTo } from './event-outbox';

export interface OverrideChange {
  readonly override: QuarantineOverride;
  readonly actor: string;
  readonly reason?: string;
  /** When the override stops applying (checkOverrideExpiry); without it, until changed. */
  readonly expiresAt?: Date;
  readonly owner?: string;
}

export async function findTestPk(db: Queryable, repositoryPk: string, id: string): Promise<string | null> {
  const { rows } = await db.query<{ pk: string }>(
    `SELECT t.pk FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
     WHERE r.pk = $1 AND t.organisation_id = r.organisation_id AND t.id = $2`,
    [repositoryPk, id],
  );
  return rows[0]?.pk ?? null;
}

/**
 * Sets the override; false when the test does not exist in the repository. A change of the override's
 * value also writes a test_case.quarantining_setting_changed outbox row (when the organisation
 * subscribes to it), which `sink` gets after the commit; setting the value the test already has
 * (a retried request, a new reason) records who and why but announces nothing. Throws
 * QuarantineInputError for an expiry that does not fit (checkOverrideExpiry).
 */
export async function setQuarantineOverride(
  pool: Pool,
  repositoryPk: string,
  id: string,
  change: OverrideChange,
  now: Date,
  sink?: OutboxSink,
): Promise<boolean> {
  const expiresAt = change.expiresAt ?? null;
  checkOverrideExpiry(change.override, expiresAt, now);
  const owner = change.owner ?? null;
  const result = await inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ pk: string; quarantine_override: QuarantineOverride }>(
      `SELECT pk, quarantine_override FROM test_cases WHERE repository_pk = $1 AND id = $2 FOR UPDATE`,
      [repositoryPk, id],
    );
    const test = rows[0];
    if (test === undefined) return null;
    await client.query(
      `UPDATE test_cases SET quarantine_override = $2, override_by = $3, override_at = $4, override_reason = $5,
         override_expires_at = $6, override_owner = $7
       WHERE pk = $1`,
      [test.pk, change.override, change.actor, now, change.reason ?? null, expiresAt, owner],
    );
    const { rows: events } = await client.query<{ pk: string }>(
      `WITH history AS (
         INSERT INTO quarantine_override_history (test_pk, previous, override, set_by, reason, set_at, expires_at, owner)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING pk, test_pk, previous, override
       )
       INSERT INTO test_case_event_outbox (organisation_id, test_pk, event_type, source_pk)
       SELECT t.organisation_id, h.test_pk, 'test_case.quarantining_setting_changed', h.pk
       FROM history h JOIN test_cases t ON t.pk = h.test_pk
       WHERE h.previous <> h.override
         AND ${subscribedTo('test_case.quarantining_setting_changed', 't.organisation_id')}
       RETURNING pk`,
      [
        test.pk,
        test.quarantine_override,
        change.override,
        change.actor,
        change.reason ?? null,
        now,
        expiresAt,
        owner,
      ],
    );
    return events.map((e) => e.pk);
  });
  if (result === null) return false;
  if (result.length > 0) sink?.(result);
  return true;
}

/** Links (or replaces) the ticket of a test; false when the test does not exist in the repository. */
export async function linkTicket(
  db: Queryable,
  repositoryPk: string,
  id: string,
  ticket: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ pk: string }>(
    `UPDATE test_cases SET ticket = $3, ticket_linked_at = $4 WHERE repository_pk = $1 AND id = $2 RETURNING pk`,
    [repositoryPk, id, ticket, now],
  );
  return rows.length > 0;
}

export interface TicketLink {
  readonly testId: string;
  readonly repository: { readonly host: string; readonly owner: string; readonly name: string };
  readonly name: string;
  readonly linkedAt: Date;
}

/**
 * A test found by id alone is shown only while its organisation owns its repository (migration 0008):
 * rows an organisation wrote before another one was found to own the repository stay hidden.
 */
const OWNED_BY_ORGANISATION = `EXISTS (SELECT 1 FROM repository_owners o WHERE o.organisation_id = $1
  AND lower(o.host) = lower(r.host) AND lower(o.owner) = lower(r.owner) AND lower(o.name) = lower(r.name))`;

/** Tests of the organisation linked to a ticket key (in repositories it owns). */
export async function testsForTicket(
  db: Queryable,
  organisationId: string,
  ticket: string,
): Promise<TicketLink[]> {
  const { rows } = await db.query<{
    id: string;
    host: string;
    owner: string;
    repo_name: string;
    name: string;
    ticket_linked_at: Date;
  }>(
    `SELECT t.id, r.host, r.owner, r.name AS repo_name, t.name, t.ticket_linked_at
     FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
     WHERE t.organisation_id = $1 AND t.ticket = $2 AND ${OWNED_BY_ORGANISATION}
     ORDER BY t.id LIMIT 1000`,
    [organisationId, ticket],
  );
  return rows.map((r) => ({
    testId: r.id,
    repository: { host: r.host, owner: r.owner, name: r.repo_name },
    name: r.name,
    linkedAt: r.ticket_linked_at,
  }));
}

/** The test's primary key by organisation and id alone (its id already names the repository). */
export async function findTestPkInOrganisation(
  db: Queryable,
  organisationId: string,
  id: string,
): Promise<string | null> {
  const { rows } = await db.query<{ pk: string }>(
    `SELECT t.pk FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
     WHERE t.organisation_id = $1 AND t.id = $2 AND ${OWNED_BY_ORGANISATION}`,
    [organisationId, id],
  );
  return rows[0]?.pk ?? null;
}
