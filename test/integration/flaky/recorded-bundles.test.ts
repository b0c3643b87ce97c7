/**
 * Bundles recorded from the real trunk-analytics-cli (test/fixtures/bundles/README.md says how), sent
 * byte for byte through the three calls the CLI makes: createBundleUpload with the CLI's own request
 * body, the PUT of its bundle, and getQuarantineConfig with its own request. Checked: the stored
 * results match the bundle, the ids railyard gives the failed tests are the ids the CLI computed, and
 * once those tests are quarantined the CLI's lookup answers every one of them (so the CLI reports the
 * run quarantined: its rule is that every failure's id is among `testIds`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createBundleWorld, type BundleWorld } from './bundle-harness';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'bundles');
const RECORDED = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

interface CliTest {
  name: string;
  parentName: string;
  className: string;
  file: string;
  id: string;
}

let w: BundleWorld;
beforeAll(async () => {
  w = await createBundleWorld('recorded_bundles');
});
afterAll(() => w?.close());

const fixture = (name: string, file: string) => readFileSync(path.join(FIXTURES, name, file));

const post = (route: string, body: Buffer) =>
  fetch(`${w.base}/v1/metrics/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': w.key },
    body,
  });

test('four recordings are present', () => {
  expect(RECORDED).toEqual([
    'go-junit-report',
    'jest-retries-linux-codeowners',
    'pytest-xunit1-mac',
    'surefire-rerun',
  ]);
});

describe.each(RECORDED)('the recording %s', (name) => {
  const create = JSON.parse(fixture(name, 'create.json').toString()) as { repo: { name: string } };
  const lookup = JSON.parse(fixture(name, 'quarantine-request.json').toString()) as {
    testIdentifiers: CliTest[];
  };
  const failed = lookup.testIdentifiers;

  test('uploads through createBundleUpload and the PUT, and stores what the CLI sent', async () => {
    const created = await post('createBundleUpload', fixture(name, 'create.json'));
    expect(created.status).toBe(200);
    const { id, url } = (await created.json()) as { id: string; url: string };
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: fixture(name, 'bundle.tar.zst'),
    });
    expect(put.status).toBe(200);
    const outcome = (await put.json()) as { upload_id: string; created: boolean; failures: number };
    expect(outcome).toMatchObject({ upload_id: id, created: true });
    expect(outcome.failures).toBeGreaterThanOrEqual(failed.length);

    // The failed tests' ids are the CLI's.
    const { rows } = await w.pool.query<{ id: string; name: string }>(
      `SELECT t.id, t.name FROM test_cases t JOIN repositories r ON r.pk = t.repository_pk
        WHERE r.name = $1 AND t.name = ANY($2)`,
      [create.repo.name, failed.map((t) => t.name)],
    );
    const ours = new Map(rows.map((r) => [r.name, r.id]));
    for (const t of failed)
      expect({ name: t.name, id: ours.get(t.name) }).toEqual({ name: t.name, id: t.id });
  });

  test("the CLI's quarantine lookup answers the failures once they are quarantined", async () => {
    const repo = { host: 'github.com', owner: 'acme', name: create.repo.name };
    const json = (route: string, body: object) =>
      fetch(`${w.base}/v1/flaky-tests/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': w.key },
        body: JSON.stringify({ repo, org_url_slug: 'acme', ...body }),
      });
    const enabled = await json('update-repository-settings', {
      quarantine: { enabled: true, auto_quarantine: false },
    });
    expect(enabled.status).toBe(200);
    const before = await post('getQuarantineConfig', fixture(name, 'quarantine-request.json'));
    expect(before.status).toBe(200);
    expect(((await before.json()) as { testIds: string[] }).testIds).toEqual([]);
    for (const t of failed) {
      const set = await json('set-quarantine-override', { test_id: t.id, override: 'ALWAYS_QUARANTINE' });
      expect(set.status).toBe(200);
    }
    const after = await post('getQuarantineConfig', fixture(name, 'quarantine-request.json'));
    const answer = (await after.json()) as { isDisabled: boolean; testIds: string[] };
    expect(answer.isDisabled).toBe(false);
    // The CLI's rule: the run is quarantined when every failure's id is among testIds.
    expect(failed.every((t) => answer.testIds.includes(t.id))).toBe(true);
    expect(failed.length).toBeGreaterThan(0);
  });
});
