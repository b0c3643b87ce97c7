/** The quarantine rule's full truth table (api-spec.md §2.6 rule 1, plus NEVER_QUARANTINE). */
import { QUARANTINE_OVERRIDES, quarantineOf } from '../../../flaky/quarantine';

const STATUSES = ['healthy', 'flaky', 'broken'] as const;

const rows = [false, true].flatMap((enabled) =>
  [false, true].flatMap((auto) =>
    QUARANTINE_OVERRIDES.flatMap((override) =>
      STATUSES.map((status) => ({ enabled, auto, override, status })),
    ),
  ),
);

test.each(rows)(
  'enabled=$enabled auto=$auto override=$override status=$status',
  ({ enabled, auto, override, status }) => {
    const verdict = quarantineOf({ enabled, autoQuarantine: auto }, override, status);
    const expected =
      enabled &&
      (override === 'ALWAYS_QUARANTINE' || (auto && override !== 'NEVER_QUARANTINE' && status !== 'healthy'));
    expect(verdict.quarantined).toBe(expected);
    if (verdict.quarantined)
      expect(verdict.setting).toBe(
        override === 'ALWAYS_QUARANTINE' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE',
      );
  },
);

test('the table has every combination', () => expect(rows).toHaveLength(36));
