/**
 * The flaky-test webhook events, from the outbox to the deliveries (docs/webhooks.md).
 *
 * Every change that announces an event writes an outbox row in its own transaction (a status change
 * of re-classification: store/reclassify.ts, for uploads, the merge queue's runs and the schedule
 * alike; an override change: store/test-case-admin.ts). After the commit the store hands the rows
 * to `published`, which dispatches them in the background: it reads each row's change and the test's
 * current TestCase object, records one delivery per matching subscription (recordDeliveries), starts
 * their workflows (the durable delivery of webhooks) and deletes the rows.
 *
 * Rules:
 * - The caller never waits and never fails because of an event: `published` returns at once, one
 *   dispatch loop per process works through the rows, and a failure (PostgreSQL or Temporal down) is
 *   reported to `onError` and leaves the rows in the outbox.
 * - Nothing is lost: rows left behind (a failure, a process that stopped before dispatching) are sent
 *   by `drain`, which the hourly re-evaluation activity runs.
 * - Nothing is sent twice: the delivery key is the event's source row (the history row of the
 *   change), so dispatching a row again, in another process or after a crash between recording and
 *   deleting, records no second delivery, and a started workflow is not started again.
 * - `test_case` is read at dispatch time (right after the commit, or later for a row left behind),
 *   while `status_change` / `quarantine_setting_changed` are the change as recorded.
 */
import type { Client } from '@temporalio/client';
import type { Pool } from '../stores/db';
import { publishTestCaseEvents, type TestCaseEvent } from '../webhooks/test-case-events';
import type { DeliveryRetryPolicy } from '../webhooks/types';
import { deleteOutbox, loadOutbox, type OutboxRow, type OutboxSink, staleOutbox } from './store/event-outbox';
import { loadTestCases } from './store/test-case-reads';
import { createLinks, testCase, type TestCaseWire } from './test-case-wire';

export interface TestCaseEventDeps {
  readonly pool: Pool;
  readonly client: Client;
  readonly taskQueue: string;
  /** Base of the html_url links of `test_case` (RAILYARD_PUBLIC_URL). */
  readonly publicUrl: string;
  /** Overrides of the delivery retry policy (tests shorten it). */
  readonly retry?: Partial<DeliveryRetryPolicy>;
  /** The clock of `test_case`'s failure rates; the store's clock. */
  readonly now?: () => Date;
  /** Where a failed dispatch is reported; nothing here ever throws at the caller of `published`. */
  readonly onError?: (err: unknown, message: string) => void;
}

export interface TestCaseEvents {
  /** The store's after-commit hook: dispatches these outbox rows in the background. */
  readonly published: OutboxSink;
  /** Resolves once the background dispatch has nothing left to do (shutdown, tests). */
  readonly idle: () => Promise<void>;
  /**
   * Dispatches rows left in the outbox at least `minAgeMs` (60 s) old, at most `limit` (10,000);
   * answers how many it dispatched. Throws when a dispatch fails (the rows stay for the next drain).
   */
  readonly drain: (options?: { minAgeMs?: number; limit?: number }) => Promise<number>;
}

const CHUNK = 100;

/** Trunk's actor `{full_name, email}` from who we recorded: `Name <email>`, an email, or a name. */
export function actorOf(recorded: string): { fullName: string; email: string } {
  const named = /^(.*\S)\s*<([^<>\s]+@[^<>\s]+)>$/.exec(recorded);
  if (named?.[1] !== undefined && named[2] !== undefined) return { fullName: named[1], email: named[2] };
  if (/^[^\s@<>]+@[^\s@<>]+$/.test(recorded)) return { fullName: recorded, email: recorded };
  return { fullName: recorded, email: '' };
}

function eventOf(row: OutboxRow, wire: TestCaseWire): TestCaseEvent {
  const base = { organisationId: row.organisationId, testCase: { ...wire } };
  switch (row.type) {
    case 'test_case.status_changed':
      return {
        ...base,
        type: row.type,
        eventId: `status/${row.sourcePk}`,
        statusChange: {
          previousStatus: row.previous,
          currentStatus: { value: row.current, reason: row.reason, timestamp: row.at.toISOString() },
        },
      };
    case 'test_case.quarantining_setting_changed':
      return {
        ...base,
        type: row.type,
        eventId: `override/${row.sourcePk}`,
        quarantineSettingChanged: {
          actor: actorOf(row.actor),
          reason: row.reason,
          timestamp: row.at.toISOString(),
          previousQuarantiningSetting: row.previous,
          updatedQuarantiningSetting: row.current,
        },
      };
  }
}

export function createTestCaseEvents(deps: TestCaseEventDeps): TestCaseEvents {
  const links = createLinks(deps.publicUrl);
  const now = deps.now ?? (() => new Date());
  const dispatchDeps = {
    pool: deps.pool,
    client: deps.client,
    taskQueue: deps.taskQueue,
    ...(deps.retry ? { retry: deps.retry } : {}),
  };
  const report = (err: unknown, message: string) => {
    try {
      deps.onError?.(err, message);
    } catch {
      // A broken reporter must not break the dispatch loop either.
    }
  };

  /** One chunk: read, record and start, then forget the rows. */
  async function dispatch(pks: readonly string[]): Promise<number> {
    const rows = await loadOutbox(deps.pool, pks);
    const testPks = [...new Set(rows.map((r) => r.testPk))];
    const records = new Map((await loadTestCases(deps.pool, testPks, now())).map((r) => [r.pk, r]));
    const events = rows.flatMap((row) => {
      const record = records.get(row.testPk);
      return record === undefined ? [] : [eventOf(row, testCase(record, links))];
    });
    await publishTestCaseEvents(dispatchDeps, events);
    await deleteOutbox(deps.pool, pks);
    return rows.length;
  }

  const pending = new Set<string>();
  let running: Promise<void> | null = null;

  async function loop(): Promise<void> {
    while (pending.size > 0) {
      const chunk = [...pending].slice(0, CHUNK);
      for (const pk of chunk) pending.delete(pk);
      try {
        await dispatch(chunk);
      } catch (err) {
        report(
          err,
          `test_case webhook events not dispatched yet (outbox rows ${chunk.join(', ')}); the next drain sends them`,
        );
      }
    }
  }

  const kick = () => {
    if (running !== null || pending.size === 0) return;
    running = loop().finally(() => {
      running = null;
      kick();
    });
  };

  return {
    published: (pks) => {
      for (const pk of pks) pending.add(pk);
      kick();
    },
    idle: async () => {
      while (running !== null) await running;
    },
    drain: async ({ minAgeMs = 60_000, limit = 10_000 } = {}) => {
      let after = '0';
      let total = 0;
      while (total < limit) {
        const pks = await staleOutbox(deps.pool, minAgeMs, after, Math.min(CHUNK, limit - total));
        if (pks.length === 0) break;
        after = pks[pks.length - 1]!;
        total += await dispatch(pks);
      }
      return total;
    },
  };
}
