/**
 * Repositories of the flaky-test area: found by (organisation, host, owner, name), created by the
 * first upload or the first settings change, and carrying the settings every read and every
 * classification needs (quarantine switches, classification overrides, ticket links).
 *
 * Invariant: classification overrides pass resolveClassificationParams when they are saved, and are
 * read through capStoredOverrides, so a number saved before its upper bound existed is applied at the
 * bound instead of failing the repository. Overrides that fail anyway (written past the API) make
 * this repository's calls fail, and only its own: the periodic sweep skips it (reevaluate.ts).
 */
import {
  capStoredOverrides,
  type ClassificationParams,
  type RepositoryClassificationOverrides,
  resolveClassificationParams,
} from '../classification';
import type { RepositoryKey } from '../../contract';
import { type QuarantineSettings } from '../quarantine';
import { checkReleaseAfterCleanRuns } from '../quarantine-release';
import { type Pool } from 'pg';
import { type Queryable } from './db';

export interface RepositoryRecord {
  readonly pk: string;
  readonly organisationId: string;
  readonly key: RepositoryKey;
  readonly quarantine: QuarantineSettings;
  /** Consecutive clean runs that release a test quarantined by rule (quarantine-release.ts). */
  readonly releaseAfterCleanRuns: number;
  readonly classification: RepositoryClassificationOverrides;
  readonly params: ClassificationParams;
  readonly ticketUrlTemplate: string | null;
  readonly quarantineChangedAt: Date;
  readonly settingsUpdatedAt: Date | null;
  readonly settingsUpdatedBy: string | null;
}

export interface SettingsChange {
  readonly quarantineEnabled?: boolean;
  readonly autoQuarantine?: boolean;
  /** Within RELEASE_AFTER_CLEAN_RUNS (checked by the API's schema and by the column's CHECK). */
  readonly releaseAfterCleanRuns?: number;
  /** Replaces the stored overrides as a whole; validated first. */
  readonly classification?: RepositoryClassificationOverrides;
  readonly ticketUrlTemplate?: string | null;
}

interface RepositoryRow {
  pk: string;
  organisation_id: string;
  host: string;
  owner: string;
  name: string;
  quarantine_enabled: boolean;
  auto_quarantine: boolean;
  release_after_clean_runs: number;
  classification: RepositoryClassificationOverrides;
  ticket_url_template: string | null;
  quarantine_changed_at: Date;
  settings_updated_at: Date | null;
  settings_updated_by: string | null;
}

const COLUMNS = `pk, organisation_id, host, owner, name, quarantine_enabled, auto_quarantine, release_after_clean_runs,
  classification,
  ticket_url_template, quarantine_changed_at, settings_updated_at, settings_updated_by`;

export async function findRepository(
  db: Queryable,
  organisationId: string,
  key: RepositoryKey,
): Promise<RepositoryRecord | null> {
  const { rows } = await db.query<RepositoryRow>({
    name: 'flaky-find-repository',
    text: `SELECT ${COLUMNS} FROM repositories WHERE organisation_id = $1 AND host = $2 AND owner = $3 AND name = $4`,
    values: [organisationId, key.host, key.owner, key.name],
  });
  return rows[0] === undefined ? null : toRecord(rows[0]);
}

export async function findRepositoryByPk(db: Queryable, pk: string): Promise<RepositoryRecord | null> {
  const { rows } = await db.query<RepositoryRow>(`SELECT ${COLUMNS} FROM repositories WHERE pk = $1`, [pk]);
  return rows[0] === undefined ? null : toRecord(rows[0]);
}

/** The repository, created with default settings when it does not exist yet. */
export async function ensureRepository(
  db: Queryable,
  organisationId: string,
  key: RepositoryKey,
): Promise<RepositoryRecord> {
  const found = await findRepository(db, organisationId, key);
  if (found) return found;
  await db.query(
    `INSERT INTO repositories (organisation_id, host, owner, name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organisation_id, host, owner, name) DO NOTHING`,
    [organisationId, key.host, key.owner, key.name],
  );
  const created = await findRepository(db, organisationId, key);
  if (!created) throw new Error('repository vanished right after it was created');
  return created;
}

/**
 * Applies a settings change (creating the repository if needed); throws ClassificationParamsError or
 * QuarantineInputError.
 */
export async function updateRepositorySettings(
  db: Queryable,
  organisationId: string,
  key: RepositoryKey,
  change: SettingsChange,
  actor: string,
  now: Date,
): Promise<RepositoryRecord> {
  if (change.classification !== undefined) resolveClassificationParams(change.classification);
  if (change.releaseAfterCleanRuns !== undefined) checkReleaseAfterCleanRuns(change.releaseAfterCleanRuns);
  const repository = await ensureRepository(db, organisationId, key);
  const enabled = change.quarantineEnabled ?? repository.quarantine.enabled;
  const auto = change.autoQuarantine ?? repository.quarantine.autoQuarantine;
  const quarantineChanged =
    enabled !== repository.quarantine.enabled || auto !== repository.quarantine.autoQuarantine;
  const { rows } = await db.query<RepositoryRow>(
    `UPDATE repositories SET quarantine_enabled = $2, auto_quarantine = $3, classification = $4,
       ticket_url_template = $5, quarantine_changed_at = CASE WHEN $6 THEN $7 ELSE quarantine_changed_at END,
       settings_updated_at = $7, settings_updated_by = $8, release_after_clean_runs = $9
     WHERE pk = $1 RETURNING ${COLUMNS}`,
    [
      repository.pk,
      enabled,
      auto,
      JSON.stringify(change.classification ?? repository.classification),
      change.ticketUrlTemplate === undefined ? repository.ticketUrlTemplate : change.ticketUrlTemplate,
      quarantineChanged,
      now,
      actor,
      change.releaseAfterCleanRuns ?? repository.releaseAfterCleanRuns,
    ],
  );
  return toRecord(rows[0]!);
}

function toRecord(row: RepositoryRow): RepositoryRecord {
  return {
    pk: row.pk,
    organisationId: row.organisation_id,
    key: { host: row.host, owner: row.owner, name: row.name },
    quarantine: { enabled: row.quarantine_enabled, autoQuarantine: row.auto_quarantine },
    releaseAfterCleanRuns: row.release_after_clean_runs,
    classification: row.classification,
    params: resolveClassificationParams(capStoredOverrides(row.classification)),
    ticketUrlTemplate: row.ticket_url_template,
    quarantineChangedAt: row.quarantine_changed_at,
    settingsUpdatedAt: row.settings_updated_at,
    settingsUpdatedBy: row.settings_updated_by,
  };
}

/** The slug is part of every test id (identity.ts); a queue knows its organisation only by id. */
export async function organisationSlugOf(pool: Pool, organisationId: string): Promise<string> {
  const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
    organisationId,
  ]);
  const slug = rows[0]?.slug;
  if (slug === undefined) throw new Error(`organisation ${organisationId} does not exist`);
  return slug;
}
