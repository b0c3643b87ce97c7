/**
 * An organisation's retention settings (columns of `organisations`, migration 0026): days of raw
 * results and of rollups, NULL meaning the deployment's default. Operators change them with
 * `npm run orgs -- retention` (scripts/orgs.ts).
 *
 * Invariant: what is stored passed checkRetentionSettings (flaky/retention.ts) against the defaults
 * of the process that stored it; the columns' CHECK constraints hold the bounds as a backstop.
 */
import { checkRetentionSettings, type RetentionDefaults, type RetentionSettings } from '../retention';
import { type Queryable } from './db';

export interface OrganisationRetention extends RetentionSettings {
  readonly organisationId: string;
  readonly slug: string;
  readonly updatedAt: Date | null;
  readonly updatedBy: string | null;
}

/** A change: a number sets the field, null puts it back to the default, absent leaves it. */
export interface RetentionChange {
  readonly rawDays?: number | null;
  readonly rollupDays?: number | null;
}

interface Row {
  id: string;
  slug: string;
  raw_retention_days: number | null;
  rollup_retention_days: number | null;
  retention_updated_at: Date | null;
  retention_updated_by: string | null;
}

const COLUMNS =
  'id, slug, raw_retention_days, rollup_retention_days, retention_updated_at, retention_updated_by';

export async function findOrganisationRetention(
  db: Queryable,
  slug: string,
): Promise<OrganisationRetention | null> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM organisations WHERE slug = $1`, [slug]);
  return rows[0] === undefined ? null : toRecord(rows[0]);
}

/**
 * Applies the change; null when there is no such organisation. Throws RetentionSettingsError, naming
 * the field, for a value out of bounds or rollups kept shorter than raw results.
 */
export async function updateOrganisationRetention(
  db: Queryable,
  slug: string,
  change: RetentionChange,
  defaults: RetentionDefaults,
  actor: string,
  now: Date,
): Promise<OrganisationRetention | null> {
  const current = await findOrganisationRetention(db, slug);
  if (current === null) return null;
  const next = checkRetentionSettings(
    {
      rawDays: change.rawDays === undefined ? current.rawDays : change.rawDays,
      rollupDays: change.rollupDays === undefined ? current.rollupDays : change.rollupDays,
    },
    defaults,
  );
  const { rows } = await db.query<Row>(
    `UPDATE organisations SET raw_retention_days = $2, rollup_retention_days = $3,
       retention_updated_at = $4, retention_updated_by = $5
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [current.organisationId, next.rawDays, next.rollupDays, now, actor],
  );
  return rows[0] === undefined ? null : toRecord(rows[0]);
}

function toRecord(row: Row): OrganisationRetention {
  return {
    organisationId: row.id,
    slug: row.slug,
    rawDays: row.raw_retention_days,
    rollupDays: row.rollup_retention_days,
    updatedAt: row.retention_updated_at,
    updatedBy: row.retention_updated_by,
  };
}
