import { mustRecord, transition, type Classification } from '../../../../flaky/classification';

const verdict = (status: Classification['status'], reason: string, at = 1_000): Classification => ({
  status,
  reason,
  reasonCode: 'no_signal',
  timestamp: new Date(at),
});

describe('status transitions for the history table', () => {
  test.each([
    ['first classification', undefined, verdict('healthy', 'no_signal'), 'first', true],
    [
      'healthy → flaky',
      verdict('healthy', 'no_signal'),
      verdict('flaky', 'manual_flag', 2_000),
      'status_changed',
      true,
    ],
    [
      'flaky → broken',
      verdict('flaky', 'manual_flag'),
      verdict('broken', 'consecutive_failing_commits:3'),
      'status_changed',
      true,
    ],
    [
      'new evidence, same status',
      verdict('flaky', 'mixed_outcomes_same_commit:sha=aaaaaaa'),
      verdict('flaky', 'mixed_outcomes_same_commit:sha=bbbbbbb'),
      'reason_changed',
      false,
    ],
    ['identical', verdict('flaky', 'manual_flag'), verdict('flaky', 'manual_flag'), 'unchanged', false],
  ] as const)('%s', (_name, previous, next, kind, record) => {
    const change = transition(previous, next);
    expect(change.kind).toBe(kind);
    expect(mustRecord(change)).toBe(record);
  });

  test('a status change carries where it came from', () => {
    expect(
      transition(verdict('healthy', 'no_signal'), verdict('broken', 'broken_rate:1.00,n=6')),
    ).toMatchObject({
      kind: 'status_changed',
      from: 'healthy',
    });
  });
});
