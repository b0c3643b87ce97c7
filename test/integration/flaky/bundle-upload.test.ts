/**
 * Trunk's bundle upload through a listening railyard, as trunk-analytics-cli does it: POST
 * createBundleUpload with a key, then a plain PUT (no key) of the URL it answers with the bundle
 * (tar + the zstd program at level 15), then the results are read back through the flaky-test API.
 * createBundleUpload refuses a wrong slug and another organisation's repository; the signature never
 * reaches the log or an answer. Refusals of the PUT: bundle-upload-refusals.test.ts.
 */
import { bundleOf, metaJson } from '../../support/bundles';
import { testReport } from '../../support/test-report-wire';
import { type BundleWorld, cliBundle, createBundleWorld, REPO } from './bundle-harness';

let w: BundleWorld;
beforeAll(async () => {
  w = await createBundleWorld('bundle_flow');
});
afterAll(() => w.close());

describe('the CLI flow', () => {
  it('stores a bundle: createBundleUpload, PUT without a key, results in list-failing-tests', async () => {
    const { id, url } = await w.uploadUrl();
    expect(url.startsWith(`${w.base}/v1/metrics/bundles/${id}?expires=`)).toBe(true);
    const bundle = await cliBundle(
      {
        sha: 'abc1230000000000000000000000000000000000',
        branch: 'feature/cart',
        variant: 'linux',
        envs: {
          GITHUB_REF: 'refs/pull/42/merge',
          GITHUB_JOB: 'unit',
          GITHUB_RUN_ATTEMPT: '2',
          GITHUB_REPOSITORY: 'acme/shop',
          GITHUB_RUN_ID: '9',
        },
      },
      [{ name: 'CODEOWNERS', content: '/src/cart/ @acme/checkout\n' }],
    );
    const res = await w.put(url, bundle);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ upload_id: id, created: true, tests: 2, failures: 1 });

    const { rows } = await w.pool.query(
      `SELECT commit_sha, branch, pr_number, job_name, job_url, job_attempt, variant FROM uploads WHERE upload_id = $1`,
      [id],
    );
    expect(rows).toEqual([
      {
        commit_sha: 'abc1230000000000000000000000000000000000',
        branch: 'feature/cart',
        pr_number: '42',
        job_name: 'unit',
        job_url: 'https://github.com/acme/shop/actions/runs/9/attempts/2',
        job_attempt: 2,
        variant: 'linux',
      },
    ]);
    const owners = await w.pool.query(`SELECT name, codeowners FROM test_cases ORDER BY name`);
    expect(owners.rows).toEqual([
      { name: 'adds', codeowners: ['@acme/checkout'] },
      { name: 'totals', codeowners: ['@acme/checkout'] },
    ]);
    const listed = await fetch(`${w.base}/v1/flaky-tests/list-failing-tests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': w.key },
      body: JSON.stringify({
        repo: REPO,
        org_url_slug: 'acme',
        start_time: new Date(w.now() - 3_600_000).toISOString(),
        end_time: new Date(w.now() + 3_600_000).toISOString(),
        page_query: { page_size: 10 },
      }),
    });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { tests: { name: string }[] }).tests.map((t) => t.name)).toEqual([
      'totals',
    ]);
  });

  it('stores a plugin bundle whose results are only a protobuf report', async () => {
    const { id, url } = await w.uploadUrl();
    const bundle = await bundleOf([
      { name: 'meta.json', content: JSON.stringify(metaJson({ internal: ['tmp/rspec.bin'] })) },
      {
        name: 'internal/0',
        content: testReport([[{ name: 'pays', classname: 'Checkout', file: 'spec/pay_spec.rb', status: 2 }]]),
      },
    ]);
    const res = await w.put(url, bundle);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ upload_id: id, tests: 1, failures: 1 });
  });

  it('keeps the signature out of the log and out of every answer', async () => {
    const { url } = await w.uploadUrl();
    const signature = new URL(url).searchParams.get('signature')!;
    const forged = url.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`);
    const refused = await w.put(forged, await cliBundle());
    expect(await refused.text()).not.toContain(signature);
    await w.put(url, await cliBundle());
    const reused = await w.put(url, await cliBundle());
    expect(await reused.text()).not.toContain(signature);
    expect(w.log.text()).not.toContain(signature);
    expect(w.log.text()).toContain('/v1/metrics/bundles/');
  });
});

describe('fork pull requests', () => {
  it('starts an upload with the repository’s public id and an empty key, for that repository only', async () => {
    const { rows } = await w.pool.query<{ public_id: string }>(
      `SELECT public_id FROM repository_owners WHERE host = $1 AND owner = $2 AND name = $3`,
      [REPO.host, REPO.owner, REPO.name],
    );
    const fork = {
      'content-type': 'application/json',
      'x-api-token': '',
      'x-trunk-public-repo-id': rows[0]!.public_id,
    };
    const body = { repo: REPO, orgUrlSlug: 'acme' };
    const res = await fetch(`${w.base}/v1/metrics/createBundleUpload`, {
      method: 'POST',
      headers: fork,
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect((await w.put(url, await cliBundle())).status).toBe(200);
    const other = await fetch(`${w.base}/v1/metrics/createBundleUpload`, {
      method: 'POST',
      headers: fork,
      body: JSON.stringify({ ...body, repo: { ...REPO, name: 'other' } }),
    });
    expect(other.status).toBe(403);
  });
});

describe('createBundleUpload refusals', () => {
  it('answers 404 for a slug that is not the key’s organisation (the CLI says the slug may be wrong)', async () => {
    const res = await w.createUpload({ orgUrlSlug: 'globex' });
    expect([res.status, await res.text()]).toEqual([404, "Organisation 'globex' was not found."]);
  });

  it('answers 404 for another organisation’s repository, and 401 without a key', async () => {
    const res = await w.createUpload({ orgUrlSlug: 'globex' }, w.otherKey);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(
      /^Repository github.com\/acme\/shop is not one of your organisation's repositories/,
    );
    const noKey = await w.createUpload({}, '');
    expect(noKey.status).toBe(401);
  });

  it('names a missing field', async () => {
    const res = await w.createUpload({ orgUrlSlug: undefined });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/orgUrlSlug/);
  });
});
