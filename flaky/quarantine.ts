/**
 * The quarantine rule, as the spec (api-spec.md §2.6) states it, plus Trunk's NEVER_QUARANTINE and
 * railyard's lifecycle (docs/flaky-tests.md §5): a test is quarantined when quarantining is enabled
 * for its repository AND (its effective override is ALWAYS_QUARANTINE OR (auto-quarantine is on AND
 * its status is flaky or broken AND its effective override is not NEVER_QUARANTINE AND it is not
 * released)).
 *
 * The effective override is the stored one until its expiry, UNSPECIFIED from then on: an override
 * with an expiry stops applying at that instant whether or not the sweep has recorded it yet. A
 * release (quarantine-release.ts) ends only quarantine by rule: a still-valid override wins.
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

/** A stored override and when it stops applying (null: until someone changes it). */
export interface OverrideState {
  readonly value: QuarantineOverride;
  readonly expiresAt: Date | null;
}

/** Why a test is quarantined (Trunk's `quarantine_setting`), or not. */
export type QuarantineVerdict =
  | { readonly quarantined: true; readonly setting: 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE' }
  | { readonly quarantined: false };

/** The override that applies at `now`: UNSPECIFIED from its expiry on (the expiry instant included). */
export function effectiveOverride(override: OverrideState, now: Date): QuarantineOverride {
  return override.expiresAt !== null && override.expiresAt.getTime() <= now.getTime()
    ? 'UNSPECIFIED'
    : override.value;
}

/** `override` is the effective one (effectiveOverride); `released`: released after clean runs. */
export function quarantineOf(
  settings: QuarantineSettings,
  override: QuarantineOverride,
  status: TestStatus,
  released: boolean,
): QuarantineVerdict {
  if (!settings.enabled) return { quarantined: false };
  switch (override) {
    case 'ALWAYS_QUARANTINE':
      return { quarantined: true, setting: 'ALWAYS_QUARANTINE' };
    case 'NEVER_QUARANTINE':
      return { quarantined: false };
    case 'UNSPECIFIED':
      return settings.autoQuarantine && isUnhealthy(status) && !released
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

/** A quarantine setting or override out of its bounds; the message is one sentence naming the field. */
export class QuarantineInputError extends Error {
  override readonly name = 'QuarantineInputError';
}

/** The longest an override may be set to last: a quarantine should be looked at again within a year. */
export const MAX_OVERRIDE_DAYS = 365;

/**
 * Throws QuarantineInputError unless the expiry fits the override: only ALWAYS_QUARANTINE and
 * NEVER_QUARANTINE can expire (UNSPECIFIED is what an expiry leads to), after `now` and at most
 * MAX_OVERRIDE_DAYS ahead.
 */
export function checkOverrideExpiry(override: QuarantineOverride, expiresAt: Date | null, now: Date): void {
  if (expiresAt === null) return;
  if (override === 'UNSPECIFIED')
    throw new QuarantineInputError(
      "Field 'expires_at' can only be given with ALWAYS_QUARANTINE or NEVER_QUARANTINE.",
    );
  if (expiresAt.getTime() <= now.getTime())
    throw new QuarantineInputError("Field 'expires_at' must be in the future.");
  if (expiresAt.getTime() > now.getTime() + MAX_OVERRIDE_DAYS * 86_400_000)
    throw new QuarantineInputError(`Field 'expires_at' must be at most ${MAX_OVERRIDE_DAYS} days ahead.`);
}
