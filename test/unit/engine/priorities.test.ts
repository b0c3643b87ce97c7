import { parsePriority, priorityName } from '../../../engine';
import { Harness } from './harness';

describe('priorities', () => {
  it.each<[string, number | string | null | undefined, number | null]>([
    ['absent means medium', undefined, 100],
    ['null means medium', null, 100],
    ['urgent', 'urgent', 0],
    ['names are case-insensitive', 'HIGH', 10],
    ['low', 'low', 200],
    ['a number', 37, 37],
    ['a numeric string', '42', 42],
    ['255 is the lowest', 255, 255],
    ['256 is out of range', 256, null],
    ['negative is invalid', -1, null],
    ['a fraction is invalid', 1.5, null],
    ['an unknown name is invalid', 'asap', null],
  ])('parsePriority: %s', (_name, input, expected) => {
    expect(parsePriority(input)).toBe(expected);
  });

  it.each<[number, string]>([
    [0, 'urgent'],
    [1, 'high'],
    [10, 'high'],
    [11, 'medium'],
    [100, 'medium'],
    [101, 'low'],
    [255, 'low'],
  ])('priority %i is named %s', (value, name) => {
    expect(priorityName(value)).toBe(name);
  });

  describe('resubmission and priority changes update the entry in place', () => {
    it('re-places a PR that has not started by its new priority', () => {
      const q = new Harness({ concurrency: 1 });
      q.submit(1);
      q.submit(2);
      q.submit(3);
      q.submit(3, { priority: 10 });
      expect(q.line()).toEqual([1, 3, 2]);
      expect(q.state.entries.find((e) => e.pr === 3)?.seq).toBe(3);
    });

    it('keeps the place of a PR that has started when its priority rises (not urgent)', () => {
      const q = new Harness({ concurrency: 2 });
      q.submit(1);
      q.submit(2);
      q.send({ type: 'priorityChanged', pr: 2, priority: 10, noBatch: false });
      expect(q.line()).toEqual([1, 2]);
      expect(q.runs()).toEqual([[1], [1, 2]]);
    });

    it('lets a started PR that becomes urgent skip the line, restarting the runs it overtakes', () => {
      const q = new Harness({ concurrency: 2 });
      q.submit(1);
      q.submit(2);
      q.submit(2, { priority: 0 });
      expect(q.line()).toEqual([2, 1]);
      expect(q.runs()).toEqual([[2], [2, 1]]);
      expect(q.timeline(1)).toContain('pending:SKIP_THE_LINE_INTERRUPTED');
    });

    it('records noBatch for the next run', () => {
      const q = new Harness({ concurrency: 1, batch: true, batchingMinSize: 2 });
      q.submit(1);
      q.submit(2);
      q.submit(3);
      q.send({ type: 'priorityChanged', pr: 3, priority: 100, noBatch: true });
      expect(q.batches()).toEqual([[1, 2]]);
      q.pass(1);
      q.mergeAll();
      expect(q.batches()).toEqual([[3]]);
    });
  });
});
