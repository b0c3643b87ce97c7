/**
 * The capacity benchmark's arithmetic (bench/capacity): Temporal's persistence requests split into
 * writes and reads, and the plan's cores, replicas, shards and bytes from per-unit figures.
 */
import { parsePersistence } from '../../../bench/capacity/temporal-metrics';
import { plan, MIN_SHARDS } from '../../../bench/capacity/plan';
import type { UnitCost } from '../../../bench/capacity/per-unit';

const unit = (cpuMs: number, writes: number, pgBytes: number): UnitCost => ({
  cpuMs: { api: cpuMs, worker: cpuMs, executor: 0, temporal: cpuMs, postgres: cpuMs, driver: 0 },
  historyEvents: 0,
  historyBytes: 1_000,
  persistenceWrites: writes,
  persistenceReads: 0,
  temporalFileBytes: 0,
  pgRowsInserted: 0,
  pgRowsUpdated: 0,
  pgBytes,
});

describe('capacity benchmark arithmetic', () => {
  it('sums persistence_requests by operation, writes apart from reads', () => {
    const text = [
      '# TYPE persistence_requests counter',
      'persistence_requests{operation="UpdateWorkflowExecution",service_name="history"} 30',
      'persistence_requests{operation="UpdateWorkflowExecution",service_name="frontend"} 3',
      'persistence_requests{operation="AppendHistoryNodes",service_name="history"} 7',
      'persistence_requests{operation="GetWorkflowExecution",service_name="history"} 11',
      'persistence_requests_latency_bucket{operation="GetWorkflowExecution",le="1"} 99',
    ].join('\n');
    expect(parsePersistence(text)).toEqual({
      writes: 40,
      reads: 11,
      byOperation: { UpdateWorkflowExecution: 33, AppendHistoryNodes: 7, GetWorkflowExecution: 11 },
    });
  });

  it('turns per-unit costs into cores, replicas, shards and bytes', () => {
    const zero = unit(0, 0, 0);
    const rows = plan(unit(3_600, 100, 1_000), unit(0.864, 0, 100), zero, zero);
    const [pr100, , pr10k, results1m] = rows;
    // 100 PRs an hour at 3.6 CPU-seconds each: 0.1 core; 2 replicas at least.
    expect(pr100!.cores.api).toBeCloseTo(0.1);
    expect(pr100!.replicas.api).toBe(2);
    // 10,000 an hour: 10 cores at 60 % a core per replica = 17 replicas; 278 writes/s stays under 512 shards.
    expect(pr10k!.cores.worker).toBeCloseTo(10);
    expect(pr10k!.replicas.worker).toBe(17);
    expect(pr10k!.shards).toBe(MIN_SHARDS);
    // A year of 100 PRs an hour at 1 KB each.
    expect(pr100!.postgresBytes).toBe(1_000 * 100 * 24 * 365);
    // 1M results a day, busiest hour at 3x: 34.7/s at 0.864 ms = 0.03 cores; 90 days of 100 bytes.
    expect(results1m!.cores.api).toBeCloseTo(0.03);
    expect(results1m!.postgresBytes).toBe(100 * 1_000_000 * 90);
  });

  it('gives more shards than the minimum only past 50 writes a second per shard', () => {
    const rows = plan(unit(0, 40_000, 0), unit(0, 0, 0), unit(0, 0, 0), unit(0, 0, 0));
    // 10,000 PRs an hour x 40,000 writes = 111,111 writes/s → 2,223 shards → 4,096.
    expect(rows[2]!.shards).toBe(4_096);
  });
});
