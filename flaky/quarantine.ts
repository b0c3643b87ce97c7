/**
 * The quarantine rule, exactly as the spec (api-spec.md §2.6) states it, plus Trunk's
 * NEVER_QUARANTINE: a test is quarantined when quarantining is enabled for its repository AND
 * (its override is ALWAYS_QUARANTINE OR (auto-quarantine is on AND its status is flaky or broken
 * AND its override is not NEVER_QUARANTINE)).
 *
 * This function is the single source of truth; the SQL of list-quarantined-tests mirrors it
 * (store/test-case-json.ts, quarantinedSql) and a test checks the two agree on every combination.
 */
import { type TestStatus } from './classification';

export const QUARANTINE_OVERRIDES = ['UNSPECIFIED', 'ALWAYS_QUARANTINE', 'NEVER_QUARANTINE'] as const;
export type QuarantineOverride = (typeof QUARANTINE_OVERRIDES)[number];

export interface QuarantineSettings {
  readonly enabled: boolean;
  readonly autoQuarantine: boolean;
}

/** Why a test is quarantined (Trunk's `quarantine_setting`), or not. */
export type QuarantineVerdict =
  | { readonly quarantined: true; readonly setting: 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE' }
  | { readonly quarantined: false };

export function quarantineOf(
  settings: QuarantineSettings,
  override: QuarantineOverride,
  status: TestStatus,
): QuarantineVerdict {
  if (!settings.enabled) return { quarantined: false };
  switch (override) {
    case 'ALWAYS_QUARANTINE':
      return { quarantined: true, setting: 'ALWAYS_QUARANTINE' };
    case 'NEVER_QUARANTINE':
      return { quarantined: false };
    case 'UNSPECIFIED':
      return settings.autoQuarantine && isUnhealthy(status)
        ? { quarantined: true, setting: 'AUTO_QUARANTINE' }
        : { quarantined: false };
  }
}

function isUnhealthy(status: TestStatus): boolean {
  switch (status) {
    case 'flaky':
    case 'broken':
      return true;
    case 'healthy':
      return false;
  }
}
