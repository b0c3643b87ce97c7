/** Trunk's `actor {full_name, email}` of test_case.quarantining_setting_changed, from the recorded actor. */
import { actorOf } from '../../../flaky/events';

test.each([
  ['Ada Lovelace <ada@example.com>', { fullName: 'Ada Lovelace', email: 'ada@example.com' }],
  ['ada@example.com', { fullName: 'ada@example.com', email: 'ada@example.com' }],
  ['Ada Lovelace', { fullName: 'Ada Lovelace', email: '' }],
  ['api-key:rly_ab12', { fullName: 'api-key:rly_ab12', email: '' }],
  ['<not an email>', { fullName: '<not an email>', email: '' }],
])('%s', (recorded, expected) => {
  expect(actorOf(recorded)).toEqual(expected);
});
