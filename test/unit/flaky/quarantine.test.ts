/**
 * The quarantine rule's full truth table (api-spec.md §2.6 rule 1, plus NEVER_QUARANTINE and a
 * release after clean runs), and overrides that expire.
 */
import {
  checkOverrideExpiry,
  effectiveOverride,
  QUARANTINE_OVERRIDES,
  quarantineOf,
} from '../../../flaky/quarantine';

const STATUSES = ['healthy', 'flaky', 'broken'] as const;

const rows = [false, true].flatMap((enabled) =>
  [false, true].flatMap((auto) =>
    QUARANTINE_OVERRIDES.flatMap((override) =>
      STATUSES.flatMap((status) =>
        [false, true].map((released) => ({ enabled, auto, override, status, released })),
      ),
    ),
  ),
);

test.each(rows)(
  'enabled=$enabled auto=$auto override=$override status=$status released=$released',
  ({ enabled, auto, override, status, released }) => {
    const verdict = quarantineOf({ enabled, autoQuarantine: auto }, override, status, released);
    const expected =
      enabled &&
      (override === 'ALWAYS_QUARANTINE' ||
        (auto && override !== 'NEVER_QUARANTINE' && status !== 'healthy' && !released));
    expect(verdict.quarantined).toBe(expected);
    if (verdict.quarantined)
      expect(verdict.setting).toBe(
        override === 'ALWAYS_QUARANTINE' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE',
      );
  },
);

test('the table has every combination', () => expect(rows).toHaveLength(72));

describe('an override with an expiry', () => {
  const at = new Date('2026-11-20T12:00:00.000Z');
  const before = new Date(at.getTime() - 1);
  const settings = { enabled: true, autoQuarantine: true };

  test('applies until the instant it expires, then is UNSPECIFIED', () => {
    const always = { value: 'ALWAYS_QUARANTINE', expiresAt: at } as const;
    expect(effectiveOverride(always, before)).toBe('ALWAYS_QUARANTINE');
    expect(effectiveOverride(always, at)).toBe('UNSPECIFIED');
    expect(effectiveOverride({ value: 'NEVER_QUARANTINE', expiresAt: null }, new Date(8.64e15))).toBe(
      'NEVER_QUARANTINE',
    );
  });

  test('a healthy test leaves quarantine when ALWAYS expires; an unhealthy one stays by rule', () => {
    const always = { value: 'ALWAYS_QUARANTINE', expiresAt: at } as const;
    expect(quarantineOf(settings, effectiveOverride(always, at), 'healthy', false)).toEqual({
      quarantined: false,
    });
    expect(quarantineOf(settings, effectiveOverride(always, at), 'flaky', false)).toEqual({
      quarantined: true,
      setting: 'AUTO_QUARANTINE',
    });
  });

  test('NEVER that expires lets the rule quarantine a flaky test again', () => {
    const never = { value: 'NEVER_QUARANTINE', expiresAt: at } as const;
    expect(quarantineOf(settings, effectiveOverride(never, before), 'flaky', false).quarantined).toBe(false);
    expect(quarantineOf(settings, effectiveOverride(never, at), 'flaky', false).quarantined).toBe(true);
  });

  test('a still-valid ALWAYS wins over a release; a release ends only quarantine by rule', () => {
    const always = { value: 'ALWAYS_QUARANTINE', expiresAt: at } as const;
    expect(quarantineOf(settings, effectiveOverride(always, before), 'flaky', true)).toEqual({
      quarantined: true,
      setting: 'ALWAYS_QUARANTINE',
    });
    expect(quarantineOf(settings, effectiveOverride(always, at), 'flaky', true)).toEqual({
      quarantined: false,
    });
  });

  test('expiries are checked: with an override, in the future, within a year', () => {
    const msg = (f: () => void) => {
      try {
        f();
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(msg(() => checkOverrideExpiry('ALWAYS_QUARANTINE', new Date(at.getTime() + 1), at))).toBeNull();
    expect(msg(() => checkOverrideExpiry('UNSPECIFIED', null, at))).toBeNull();
    expect(msg(() => checkOverrideExpiry('UNSPECIFIED', new Date(at.getTime() + 1), at))).toBe(
      "Field 'expires_at' can only be given with ALWAYS_QUARANTINE or NEVER_QUARANTINE.",
    );
    expect(msg(() => checkOverrideExpiry('NEVER_QUARANTINE', at, at))).toBe(
      "Field 'expires_at' must be in the future.",
    );
    expect(
      msg(() => checkOverrideExpiry('ALWAYS_QUARANTINE', new Date(at.getTime() + 366 * 86_400_000), at)),
    ).toBe("Field 'expires_at' must be at most 365 days ahead.");
  });
});
