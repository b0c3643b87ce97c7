/**
 * The deployment's retention defaults (flaky/retention.ts, docs/adr/0019-result-retention.md), read by
 * the worker (its maintenance job) and by `npm run orgs` (to check a setting against the default it
 * is compared with). Bounded like the per-organisation settings.
 */
import { z } from 'zod';
import { envInt, parseEnv } from '../platform/env';
import {
  DEFAULT_RAW_RETENTION_DAYS,
  DEFAULT_ROLLUP_RETENTION_DAYS,
  RETENTION_BOUNDS,
  type RetentionDefaults,
} from './retention';

const raw = RETENTION_BOUNDS.raw_retention_days;
const rollup = RETENTION_BOUNDS.rollup_retention_days;

export const retentionConfigShape = {
  RAILYARD_FLAKY_RAW_RETENTION_DAYS: envInt(raw.min, raw.max).default(DEFAULT_RAW_RETENTION_DAYS),
  RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS: envInt(rollup.min, rollup.max).default(DEFAULT_ROLLUP_RETENTION_DAYS),
};

const RetentionConfig = z.object(retentionConfigShape);
export type RetentionConfig = z.infer<typeof RetentionConfig>;

export const loadRetentionConfig = (env: NodeJS.ProcessEnv = process.env): RetentionConfig =>
  parseEnv(RetentionConfig, env);

export function retentionDefaultsOf(config: RetentionConfig): RetentionDefaults {
  return {
    rawDays: config.RAILYARD_FLAKY_RAW_RETENTION_DAYS,
    rollupDays: config.RAILYARD_FLAKY_ROLLUP_RETENTION_DAYS,
  };
}
