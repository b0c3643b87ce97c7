/**
 * The flaky-test webhook events (trunk-compat §7): `test_case.status_changed` and
 * `test_case.quarantining_setting_changed`. The flaky-test code calls `publishTestCaseEvent` when a
 * test's status or quarantine setting changes (through its outbox, flaky/events.ts); this
 * module shapes the payload and dispatches it.
 *
 * Rules:
 * - `test_case` is the TestCase object exactly as the flaky-test API answers it (snake_case). Trunk's
 *   own payloads were seen with `quarantine` where the API says `quarantined`, so both are sent.
 * - `eventId` identifies the change for good (say, test id + status time): publishing the same id
 *   again (a retried activity or request) delivers nothing twice.
 */
import type { OutgoingEvent, TestCaseEventType } from './event-types';
import { dispatchWebhookEvents, type WebhookDispatchDeps } from './dispatch';

export type TestCaseStatus = 'healthy' | 'flaky' | 'broken';
export type QuarantineSetting = 'ALWAYS_QUARANTINE' | 'NEVER_QUARANTINE' | 'UNSPECIFIED';

/** The TestCase wire object; only `id` is read here, the rest is passed through. */
export type TestCaseObject = { id: string } & Record<string, unknown>;

interface TestCaseEventBase {
  organisationId: string;
  eventId: string;
  testCase: TestCaseObject;
}

export type TestCaseEvent =
  | (TestCaseEventBase & {
      type: 'test_case.status_changed';
      statusChange: {
        previousStatus: TestCaseStatus;
        currentStatus: { value: TestCaseStatus; reason: string; timestamp: string };
      };
    })
  | (TestCaseEventBase & {
      type: 'test_case.quarantining_setting_changed';
      quarantineSettingChanged: {
        actor: { fullName: string; email: string };
        reason: string | null;
        timestamp: string;
        previousQuarantiningSetting: QuarantineSetting;
        updatedQuarantiningSetting: QuarantineSetting;
      };
    });

function testCaseWire(testCase: TestCaseObject): Record<string, unknown> {
  const quarantined = testCase.quarantined;
  return typeof quarantined === 'boolean' && !('quarantine' in testCase)
    ? { ...testCase, quarantine: quarantined }
    : { ...testCase };
}

function payloadOf(event: TestCaseEvent): Record<string, unknown> {
  const test_case = testCaseWire(event.testCase);
  switch (event.type) {
    case 'test_case.status_changed': {
      const { previousStatus, currentStatus } = event.statusChange;
      return {
        type: event.type,
        test_case,
        status_change: { previous_status: previousStatus, current_status: { ...currentStatus } },
      };
    }
    case 'test_case.quarantining_setting_changed': {
      const c = event.quarantineSettingChanged;
      return {
        type: event.type,
        test_case,
        quarantine_setting_changed: {
          actor: { full_name: c.actor.fullName, email: c.actor.email },
          reason: c.reason,
          timestamp: c.timestamp,
          previous_quarantining_setting: c.previousQuarantiningSetting,
          updated_quarantining_setting: c.updatedQuarantiningSetting,
        },
      };
    }
  }
}

export function testCaseOutgoingEvent(event: TestCaseEvent): OutgoingEvent {
  const type: TestCaseEventType = event.type;
  return {
    organisationId: event.organisationId,
    key: `test_case/${event.testCase.id}/${type}/${event.eventId}`,
    type,
    payload: payloadOf(event),
  };
}

/** Records a delivery per matching subscription and starts them; answers how many. */
export function publishTestCaseEvent(deps: WebhookDispatchDeps, event: TestCaseEvent): Promise<number> {
  return publishTestCaseEvents(deps, [event]);
}

/** publishTestCaseEvent for many events at once (the outbox dispatch of flaky/events.ts). */
export function publishTestCaseEvents(
  deps: WebhookDispatchDeps,
  events: readonly TestCaseEvent[],
): Promise<number> {
  return dispatchWebhookEvents(deps, events.map(testCaseOutgoingEvent));
}
