/**
 * Organisation settings for operators (docs/adr/0019-result-retention.md):
 *   npm run orgs -- retention --org <slug>                        prints what the organisation keeps
 *   npm run orgs -- retention --org <slug> [--raw-retention-days <days|default>]
 *                                          [--rollup-retention-days <days|default>]
 * Days of raw flaky-test results (8 to 400) and of their rollups (91 to 3650, at least the raw
 * days); `default` goes back to the deployment's (RAILYARD_FLAKY_RAW_RETENTION_DAYS,
 * RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS). A bad value is refused with a sentence naming the field.
 * Uses DATABASE_URL, or the database `npm start` runs (.data/database-url).
 */
import { parseArgs } from 'node:util';
import type { Pool } from 'pg';
import {
  checkRetentionDays,
  type RetentionDefaults,
  type RetentionField,
  RetentionSettingsError,
} from '../flaky/retention';
import { loadRetentionConfig, retentionDefaultsOf } from '../flaky/retention-config';
import {
  findOrganisationRetention,
  type OrganisationRetention,
  updateOrganisationRetention,
} from '../flaky/store/organisation-retention';
import { runOperatorCommand, slugOf, UsageError } from './lib/operator-command';

const USAGE = `usage: npm run orgs -- retention --org <slug> [--raw-retention-days <days|default>] [--rollup-retention-days <days|default>]`;

interface Values {
  org?: string;
  'raw-retention-days'?: string;
  'rollup-retention-days'?: string;
}

/** A flag's value: absent, `default` (null), or days within the field's bounds. */
function daysOf(field: RetentionField, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  return checkRetentionDays(field, value);
}

function describe(r: OrganisationRetention, defaults: RetentionDefaults): string {
  const days = (n: number | null, d: number) => (n === null ? `${d} days (the default)` : `${n} days`);
  return [
    `Organisation "${r.slug}" keeps`,
    `  raw results: ${days(r.rawDays, defaults.rawDays)}, or longer where a repository's classification reads further back`,
    `  rollups:     ${days(r.rollupDays, defaults.rollupDays)}`,
    r.updatedAt ? `  set ${r.updatedAt.toISOString()} by ${r.updatedBy ?? '?'}` : '  never set',
  ].join('\n');
}

export async function run(pool: Pool, command: string | undefined, values: Values): Promise<number> {
  if (command !== 'retention') throw new UsageError(USAGE);
  const slug = slugOf(values.org);
  const defaults = retentionDefaultsOf(loadRetentionConfig());
  const rawDays = daysOf('raw_retention_days', values['raw-retention-days']);
  const rollupDays = daysOf('rollup_retention_days', values['rollup-retention-days']);
  const record =
    rawDays === undefined && rollupDays === undefined
      ? await findOrganisationRetention(pool, slug)
      : await updateOrganisationRetention(
          pool,
          slug,
          {
            ...(rawDays === undefined ? {} : { rawDays }),
            ...(rollupDays === undefined ? {} : { rollupDays }),
          },
          defaults,
          'operator',
          new Date(),
        );
  if (record === null) {
    console.error(`No organisation "${slug}".`);
    return 1;
  }
  console.log(describe(record, defaults));
  return 0;
}

if (require.main === module) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      'raw-retention-days': { type: 'string' },
      'rollup-retention-days': { type: 'string' },
    },
  });
  runOperatorCommand('orgs', (pool) => run(pool, positionals[0], values), {
    expected: (err): err is Error => err instanceof RetentionSettingsError,
  });
}
