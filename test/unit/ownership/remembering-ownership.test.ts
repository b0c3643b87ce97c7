/** The worker's ownership cache: positive answers only, fresh for minutes, stale ones only in an outage. */
import { rememberingOwnership, type RepositoryOwnership } from '../../../stores/repository-owners';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };

function fakeStore(answer: () => boolean) {
  let calls = 0;
  let down = false;
  const store: RepositoryOwnership = {
    owns: () => {
      calls++;
      return down ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve(answer());
    },
  };
  return {
    store,
    calls: () => calls,
    setDown: (d: boolean) => {
      down = d;
    },
  };
}

test('a positive answer is reused while fresh, looked up again after, in any spelling', async () => {
  const clock = { t: 0 };
  const db = fakeStore(() => true);
  const owns = rememberingOwnership(db.store, { freshMs: 1_000, now: () => clock.t });
  expect(await owns.owns('org', REPO)).toBe(true);
  expect(await owns.owns('org', { ...REPO, owner: 'ACME' })).toBe(true);
  expect(db.calls()).toBe(1);
  clock.t = 1_000;
  expect(await owns.owns('org', REPO)).toBe(true);
  expect(db.calls()).toBe(2);
});

test('a negative answer is never remembered, and a lost claim is seen once the entry is stale', async () => {
  const clock = { t: 0 };
  let owner = false;
  const db = fakeStore(() => owner);
  const owns = rememberingOwnership(db.store, { freshMs: 1_000, now: () => clock.t });
  expect(await owns.owns('org', REPO)).toBe(false);
  owner = true;
  expect(await owns.owns('org', REPO)).toBe(true);
  owner = false;
  clock.t = 1_500;
  expect(await owns.owns('org', REPO)).toBe(false);
  expect(await owns.owns('other', REPO)).toBe(false);
});

test('while PostgreSQL is down a recent positive answer counts; an old one or none fails', async () => {
  const clock = { t: 0 };
  const db = fakeStore(() => true);
  const owns = rememberingOwnership(db.store, { freshMs: 1_000, staleMs: 10_000, now: () => clock.t });
  await owns.owns('org', REPO);
  db.setDown(true);
  clock.t = 5_000;
  expect(await owns.owns('org', REPO)).toBe(true);
  await expect(owns.owns('org', { ...REPO, name: 'other' })).rejects.toThrow('ECONNREFUSED');
  clock.t = 10_000;
  await expect(owns.owns('org', REPO)).rejects.toThrow('ECONNREFUSED');
});
