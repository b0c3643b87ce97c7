/**
 * Tenancy and secrets, on the real API with the real Temporal service and worker behind it.
 *
 * - A second organisation's key walks every endpoint against the first organisation's queue, PRs,
 *   test run, flaky-test repository, test case, ticket, webhook subscription and delivery, and gets
 *   the same 404 a resource that never existed gets (no hint that it exists); list endpoints show it
 *   nothing of the first organisation's; and nothing of the first organisation changes. The table is
 *   keyed by the OpenAPI operation ("METHOD /path"), and every operation the served document lists
 *   must have a row or be named as not organisation-scoped, so a new endpoint fails this test until it
 *   has one.
 * - The first organisation owns its repository (docs/adr/0006-repository-ownership.md): the endpoints
 *   that would claim an unclaimed repository (createQueue, upload, update-repository-settings, the
 *   claim itself) are refused too, so the second organisation cannot queue, test, merge, report or
 *   upload anything for it, and the repository's main branch never moves by its hand. Only a webhook
 *   subscription (not tied to a repository) is made as the second organisation's own.
 * - API keys are stored only as SHA-256 hashes: no row of any table holds a key.
 * - A webhook subscription's secret is in the creation answer and in no other answer of any webhook
 *   operation.
 * - The API's log of the whole scenario (including refused keys) holds no key and no signing secret.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { QueueView } from '../../../api/schemas/queue';
import { prWorkflowId, queueWorkflowId } from '../../../contract';
import { TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { startLiveApi, type LiveApi } from './support/live-api';

const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const NO_QUEUE = 'No merge queue exists for branch "main" of github.com/acme/app.';
const NO_REPO = 'Repository github.com/acme/app was not found.';
const NOT_OWNED =
  "Repository github.com/acme/app is not one of your organisation's repositories; claim it with POST /v1/repositories/claim or ask your railyard operator.";
const TICKET = 'KAN-7';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const METHODS = ['get', 'post', 'patch', 'delete', 'put'];

interface Probe {
  /** The request path with the first organisation's ids (and a query); the key's path otherwise. */
  url?: string;
  body?: object;
  status: number;
  /** The whole answer: a plain-text sentence, or the JSON a list answers with. */
  answer: string | object;
  /** Creates a resource of the caller's own instead (tested separately, after the walk). */
  ownCopy?: true;
}

interface Ids {
  queuedPr: number;
  mergedPr: number;
  testRunId: string;
  /** A test case of the first organisation (quarantined, linked to TICKET). */
  testId: string;
  subscriptionId: string;
  deliveryId: string;
}

const PLACEHOLDER: Ids = {
  queuedPr: 2,
  mergedPr: 1,
  testRunId: '',
  testId: '00000000-0000-0000-0000-000000000000',
  subscriptionId: '00000000-0000-0000-0000-000000000000',
  deliveryId: `msg_${'0'.repeat(32)}`,
};

/** Operations that take no organisation's resource: public probes and a fixed catalogue. */
const NOT_ORG_SCOPED: Record<string, string> = {
  'GET /healthz': 'liveness, no key',
  'GET /readyz': 'readiness, no key',
  'GET /v1/webhooks/event-types': 'the fixed list of event types',
  'POST /v1/flakytests-cli/upload-metrics': "Trunk's CLI telemetry, accepted and dropped",
  'POST /v1/flakytests-uploader/upload-metrics': "Trunk's uploader telemetry, accepted and dropped",
};

let range: { start_time: string; end_time: string };

/** What the other organisation tries, per OpenAPI operation, with the first organisation's ids. */
function table(ids: Ids): Record<string, Probe> {
  const pr = (n: number) => ({ ...QUEUE, pr: { number: n } });
  // The other organisation names itself (naming the first one is a 404 on the organisation) and the
  // first one's repository.
  const flaky = { org_url_slug: 'globex', repo: REPO };
  const page = { page_query: { page_size: 10 } };
  const sub = `/v1/webhooks/subscriptions/${ids.subscriptionId}`;
  const NO_SUB = `Webhook subscription ${ids.subscriptionId} was not found.`;
  return {
    // -- merge queue
    'POST /v1/getQueue': { body: QUEUE, status: 404, answer: NO_QUEUE },
    'POST /v1/updateQueue': {
      body: { ...QUEUE, state: 'paused', concurrency: 7 },
      status: 404,
      answer: NO_QUEUE,
    },
    'POST /v1/deleteQueue': { body: QUEUE, status: 404, answer: NO_QUEUE },
    'POST /v1/submitPullRequest': { body: pr(ids.queuedPr), status: 404, answer: NO_QUEUE },
    'POST /v1/cancelPullRequest': { body: pr(ids.queuedPr), status: 404, answer: NO_QUEUE },
    'POST /v1/restartTestsOnPullRequest': { body: pr(ids.queuedPr), status: 404, answer: NO_QUEUE },
    'POST /v1/setImpactedTargets': {
      body: { ...QUEUE, pr: { number: ids.queuedPr, sha: 'a'.repeat(40) }, impactedTargets: 'ALL' },
      status: 404,
      answer: NO_QUEUE,
    },
    'POST /v1/getSubmittedPullRequest': {
      body: pr(ids.mergedPr),
      status: 404,
      answer: `Pull request #${ids.mergedPr} was never submitted to the merge queue for branch "main" of github.com/acme/app.`,
    },
    'POST /v1/listPullRequests': { body: QUEUE, status: 404, answer: NO_QUEUE },
    'POST /v1/getMergeQueueTestingDetails': {
      body: { ...QUEUE, testRunId: ids.testRunId },
      status: 404,
      answer: NO_QUEUE,
    },
    'POST /v1/getSubmittedPullRequests': {
      body: { ...QUEUE, prs: [{ number: ids.mergedPr }] },
      status: 404,
      answer: NO_QUEUE,
    },
    'POST /v1/listMergeQueueTestingResults': {
      body: { ...QUEUE, since: new Date(Date.now() - 86_400_000).toISOString() },
      status: 404,
      answer: NO_QUEUE,
    },
    'POST /v1/reportTestStatus': {
      body: { ...QUEUE, sha: 'a'.repeat(40), context: 'ci', state: 'failure' },
      status: 404,
      answer: NO_QUEUE,
    },
    // railyard's preflight: no branch is pushed to the first organisation's repository.
    'POST /v1/queues/preflight': { body: { ...QUEUE, waitSeconds: 5 }, status: 404, answer: NO_QUEUE },
    'POST /v1/queues/preflight/result': { body: QUEUE, status: 404, answer: NO_QUEUE },
    'GET /v1/testRuns/{testRunId}/log': {
      url: `/v1/testRuns/${ids.testRunId}/log`,
      status: 404,
      answer: `No log is kept for test run "${ids.testRunId}".`,
    },
    'GET /v1/getMergeQueueMetrics': {
      url: '/v1/getMergeQueueMetrics?repo=acme/app&repoHost=github.com',
      status: 404,
      answer: 'Repository github.com/acme/app was not found.',
    },
    // The repository is the first organisation's: the other one cannot even make a queue of its own.
    'POST /v1/createQueue': {
      body: { ...QUEUE, directMergeMode: 'always' },
      status: 404,
      answer: NOT_OWNED,
    },
    'POST /v1/repositories/claim': {
      body: { repo: REPO },
      status: 409,
      answer:
        'Repository github.com/acme/app is already claimed by another organisation; ask your railyard operator to transfer it.',
    },
    'GET /v1/repositories': { status: 200, answer: { repositories: [] } },

    // -- flaky tests
    'POST /v1/flaky-tests/list-failing-tests': {
      body: { ...flaky, ...range, ...page },
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/flaky-tests/get-test-details': {
      body: { ...flaky, test_id: ids.testId },
      status: 404,
      answer: NO_REPO,
    },
    'GET /v1/flaky-tests/tests/{test_id}': {
      url: `/v1/flaky-tests/tests/${ids.testId}`,
      status: 404,
      answer: `Test case ${ids.testId} was not found.`,
    },
    'POST /v1/flaky-tests/list-unhealthy-tests': {
      body: { ...flaky, status: 'FLAKY', ...page },
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/flaky-tests/list-quarantined-tests': {
      body: { ...flaky, ...page },
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/flaky-tests/link-ticket-to-test-case': {
      body: { repo: REPO, test_case_id: ids.testId, external_ticket_id: 'EVIL-1' },
      status: 404,
      answer: NO_REPO,
    },
    'GET /v1/flaky-tests/tickets/{ticket}': {
      url: `/v1/flaky-tests/tickets/${TICKET}`,
      status: 200,
      answer: { ticket: TICKET, tests: [] },
    },
    'POST /v1/flaky-tests/get-repository-settings': { body: flaky, status: 404, answer: NO_REPO },
    'GET /v1/flaky-tests/repository': {
      url: '/v1/flaky-tests/repository?host=github.com&owner=acme&name=app',
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/flaky-tests/set-quarantine-override': {
      body: { ...flaky, test_id: ids.testId, override: 'NEVER_QUARANTINE' },
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/flaky-tests/check-quarantine': {
      body: { ...flaky, failed_tests: [{ test_id: ids.testId }] },
      status: 404,
      answer: NO_REPO,
    },
    'POST /v1/metrics/getQuarantineConfig': {
      body: {
        repo: REPO,
        orgUrlSlug: 'globex',
        remoteUrls: [],
        testIdentifiers: [{ name: 'alpha', parentName: '', id: ids.testId }],
      },
      status: 404,
      answer: NO_REPO,
    },
    // Uploads and settings would claim an unclaimed repository; this one is the first organisation's.
    'POST /v1/flaky-tests/update-repository-settings': {
      body: { ...flaky, quarantine: { enabled: false } },
      status: 404,
      answer: NOT_OWNED,
    },
    'POST /v1/flaky-tests/upload': {
      body: upload('globex', 'run-1', { alpha: 'F', omega: 'F' }, 21),
      status: 404,
      answer: NOT_OWNED,
    },
    // Trunk's bundle upload: an upload URL for the first organisation's repository is refused, and
    // a URL not signed by createBundleUpload stores nothing (test/integration/flaky/bundle-upload*).
    'POST /v1/metrics/createBundleUpload': {
      body: { repo: REPO, orgUrlSlug: 'globex' },
      status: 404,
      answer: NOT_OWNED,
    },
    'PUT /v1/metrics/bundles/{uploadId}': {
      url: `/v1/metrics/bundles/00000000-0000-4000-8000-000000000000?expires=99999999999&signature=${'A'.repeat(43)}`,
      body: {},
      status: 403,
      answer: "The upload URL's signature is not valid; use the URL createBundleUpload answered.",
    },

    // -- webhooks
    'GET /v1/webhooks/subscriptions': { status: 200, answer: { subscriptions: [] } },
    'GET /v1/webhooks/subscriptions/{id}': { url: sub, status: 404, answer: NO_SUB },
    'PATCH /v1/webhooks/subscriptions/{id}': {
      url: sub,
      body: { enabled: false, url: 'http://127.0.0.1:9/stolen' },
      status: 404,
      answer: NO_SUB,
    },
    'DELETE /v1/webhooks/subscriptions/{id}': { url: sub, status: 404, answer: NO_SUB },
    'GET /v1/webhooks/subscriptions/{id}/deliveries': {
      url: `${sub}/deliveries`,
      status: 404,
      answer: NO_SUB,
    },
    'GET /v1/webhooks/deliveries/{id}': {
      url: `/v1/webhooks/deliveries/${ids.deliveryId}`,
      status: 404,
      answer: `Webhook delivery ${ids.deliveryId} was not found.`,
    },
    'POST /v1/webhooks/subscriptions': { status: 201, answer: {}, ownCopy: true },
  };
}

let api: LiveApi;
let receiver: http.Server;
let hookUrl: string;
const keys: Record<'acme' | 'globex' | 'revoked', string> = { acme: '', globex: '', revoked: '' };
let ids: Ids;
/** Every webhook secret issued in the scenario. */
const secrets: string[] = [];

interface Answer {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

async function call(method: Method, url: string, key: string, body?: object): Promise<Answer> {
  const res = await fetch(`${api.url}${url}`, {
    method,
    headers: { 'x-api-token': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text, json: <T>() => JSON.parse(text) as T };
}

const operation = (op: string) => {
  const [method, path] = op.split(' ') as [Method, string];
  return { method, path };
};

const send = (op: string, probe: Probe, key: string) => {
  const { method, path } = operation(op);
  return call(method, probe.url ?? path, key, probe.body);
};

async function ok(method: Method, url: string, body?: object, key = keys.acme): Promise<Answer> {
  const res = await call(method, url, key, body);
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${method} ${url}: ${res.status} ${res.body}`);
  return res;
}

const junit = (tests: Record<string, 'P' | 'F'>) =>
  `<testsuites><testsuite name="cart">${Object.entries(tests)
    .map(
      ([name, outcome]) =>
        `<testcase classname="shop.Cart" name="${name}">${outcome === 'F' ? '<failure message="boom"/>' : ''}</testcase>`,
    )
    .join('')}</testsuite></testsuites>`;

const upload = (slug: string, uploadId: string, tests: Record<string, 'P' | 'F'>, prNumber: number) => ({
  org_url_slug: slug,
  repo: REPO,
  upload_id: uploadId,
  commit_sha: 'c0ffee1',
  branch: 'main',
  pr_number: prNumber,
  files: [{ name: 'junit.xml', content: junit(tests) }],
});

const failing = (slug: string, key: string) =>
  call('POST', '/v1/flaky-tests/list-failing-tests', key, {
    org_url_slug: slug,
    repo: REPO,
    ...range,
    page_query: { page_size: 100 },
  });

interface Listed {
  tests: { id: string; name: string; most_common_failures: { occurrence_count: number }[] }[];
  page: { total_rows: number };
}
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  api = await startLiveApi();
  keys.acme = await api.key('acme');
  keys.globex = await api.key('globex');
  keys.revoked = await api.key('acme');
  await api.pool.query('UPDATE api_keys SET revoked_at = now() WHERE prefix = $1', [
    keys.revoked.slice(0, 11),
  ]);

  // A subscription to every event, so the PR's transitions leave deliveries behind.
  const created = (await ok('POST', '/v1/webhooks/subscriptions', { url: hookUrl })).json<{
    id: string;
    secret: string;
  }>();
  secrets.push(created.secret);

  await ok('POST', '/v1/createQueue', QUEUE);
  api.world.openPrs([1, 2].map((n) => ({ number: n, title: `PR ${n}`, files: { [`f${n}`]: `${n}\n` } })));
  await ok('POST', '/v1/submitPullRequest', { ...QUEUE, pr: { number: 1 } });
  let testRunId: string | null = null;
  for (let tries = 0; testRunId === null && tries < 150; tries++) {
    const record = (await ok('POST', '/v1/getSubmittedPullRequest', { ...QUEUE, pr: { number: 1 } })).json<{
      state: string;
      verifiedByTestRun: string | null;
    }>();
    if (record.state === 'merged') testRunId = record.verifiedByTestRun;
    else await new Promise((r) => setTimeout(r, 200));
  }
  if (!testRunId) throw new Error('PR 1 did not merge');
  await ok('POST', '/v1/updateQueue', { ...QUEUE, state: 'paused' });
  await ok('POST', '/v1/submitPullRequest', { ...QUEUE, pr: { number: 2 } });

  // Flaky tests: alpha fails then passes on one commit (flaky), beta fails twice (quarantined by
  // override, linked to a ticket), gamma passes.
  const now = Date.now();
  range = {
    start_time: new Date(now - 3_600_000).toISOString(),
    end_time: new Date(now + 3_600_000).toISOString(),
  };
  await ok(
    'POST',
    '/v1/flaky-tests/upload',
    upload('acme', 'run-1', { alpha: 'F', beta: 'F', gamma: 'P' }, 11),
  );
  await ok(
    'POST',
    '/v1/flaky-tests/upload',
    upload('acme', 'run-2', { alpha: 'P', beta: 'F', gamma: 'P' }, 12),
  );
  const acme = { org_url_slug: 'acme', repo: REPO };
  await ok('POST', '/v1/flaky-tests/update-repository-settings', { ...acme, quarantine: { enabled: true } });
  const beta = (await failing('acme', keys.acme)).json<Listed>().tests.find((t) => t.name === 'beta')!;
  await ok('POST', '/v1/flaky-tests/set-quarantine-override', {
    ...acme,
    test_id: beta.id,
    override: 'ALWAYS_QUARANTINE',
  });
  await ok('POST', '/v1/flaky-tests/link-ticket-to-test-case', {
    repo: REPO,
    test_case_id: beta.id,
    external_ticket_id: TICKET,
  });

  let deliveryId: string | undefined;
  for (let tries = 0; deliveryId === undefined && tries < 100; tries++) {
    const page = (await ok('GET', `/v1/webhooks/subscriptions/${created.id}/deliveries`)).json<{
      deliveries: { id: string; status: string }[];
    }>();
    deliveryId = page.deliveries.find((d) => d.status === 'succeeded')?.id;
    if (!deliveryId) await new Promise((r) => setTimeout(r, 200));
  }
  if (!deliveryId) throw new Error('no webhook delivery succeeded');
  ids = { queuedPr: 2, mergedPr: 1, testRunId, testId: beta.id, subscriptionId: created.id, deliveryId };
}, 120_000);

afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('a second organisation', () => {
  test('the table has a row for every operation of the served OpenAPI document that takes an organisation’s resource', async () => {
    const doc = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThanOrEqual(36);
    const covered = new Set([...Object.keys(table(ids)), ...Object.keys(NOT_ORG_SCOPED)]);
    expect(operations.filter((op) => !covered.has(op))).toEqual([]);
    // And no row for an operation that is gone.
    expect([...covered].filter((op) => !operations.includes(op))).toEqual([]);
  });

  test.each(Object.entries(table(PLACEHOLDER)).filter(([, probe]) => !probe.ownCopy))(
    '%s: answered as if the first organisation’s resource never existed',
    async (op) => {
      const probe = table(ids)[op]!;
      const res = await send(op, probe, keys.globex);
      expect({
        status: res.status,
        answer: typeof probe.answer === 'string' ? res.body : res.json(),
      }).toEqual({
        status: probe.status,
        answer: probe.answer,
      });
    },
  );

  test('cannot land a commit on the first organisation’s repository: createQueue, a pushed PR and submit are refused and main does not move', async () => {
    const mainBefore = api.world.tip();
    const res = await call('POST', '/v1/createQueue', keys.globex, { ...QUEUE, directMergeMode: 'always' });
    expect([res.status, res.body]).toEqual([404, NOT_OWNED]);
    // The PR is pushed to the repository itself (refs/pull/78/head), based on main's tip.
    api.world.openPrs([{ number: 78, title: 'PR 78', files: { 'evil.txt': 'globex\n' } }]);
    for (const route of ['/v1/updateQueue', '/v1/submitPullRequest']) {
      const body =
        route === '/v1/updateQueue'
          ? { ...QUEUE, directMergeMode: 'always' }
          : { ...QUEUE, pr: { number: 78 } };
      const refused = await call('POST', route, keys.globex, body);
      expect([route, refused.status, refused.body]).toEqual([route, 404, NO_QUEUE]);
    }
    // Only a workflow can move main (a direct merge is the queue's): no queue of the other organisation
    // for the repository and no PR workflow of #78 under either organisation may exist. Read from
    // Temporal by id (not from visibility, which lags): the refused requests were answered, so anything
    // they started exists by now. (Before repositories had owners, such a queue was created and its
    // direct merge landed within seconds.)
    const orgs = await api.pool.query<{ slug: string; id: string }>(
      "SELECT slug, id FROM organisations WHERE slug IN ('acme', 'globex')",
    );
    const orgId = (slug: string) => orgs.rows.find((r) => r.slug === slug)!.id;
    const keyOf = (slug: string) => ({ organisationId: orgId(slug), repo: REPO, targetBranch: 'main' });
    const workflows = [
      queueWorkflowId(keyOf('globex')),
      prWorkflowId(keyOf('globex'), 78),
      prWorkflowId(keyOf('acme'), 78),
    ];
    const found = await Promise.all(
      workflows.map(async (id) => {
        try {
          return `${id}: ${(await api.temporal.client.workflow.getHandle(id).describe()).status.name}`;
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return null;
          throw err;
        }
      }),
    );
    expect(found.filter((f) => f !== null)).toEqual([]);
    // The first organisation's queue, having answered every update before this query, holds only #2.
    const theirs = QueueView.parse((await call('POST', '/v1/getQueue', keys.acme, QUEUE)).json());
    expect(theirs.enqueuedPullRequests.map((p) => p.prNumber)).toEqual([2]);
    expect(api.world.tip()).toBe(mainBefore);
    const owners = await api.pool.query<{ slug: string }>(
      `SELECT o.slug FROM repository_owners r JOIN organisations o ON o.id = r.organisation_id
       WHERE r.host = 'github.com' AND r.owner = 'acme' AND r.name = 'app'`,
    );
    expect(owners.rows).toEqual([{ slug: 'acme' }]);
  });

  test('POST /v1/webhooks/subscriptions makes the other organisation’s own subscription; its list holds only that', async () => {
    const res = await call('POST', '/v1/webhooks/subscriptions', keys.globex, {
      url: hookUrl,
      enabled: false,
    });
    expect(res.status).toBe(201);
    const theirs = res.json<{ id: string; secret: string }>();
    secrets.push(theirs.secret);
    const list = (await call('GET', '/v1/webhooks/subscriptions', keys.globex)).json<{
      subscriptions: { id: string }[];
    }>();
    expect(list.subscriptions.map((s) => s.id)).toEqual([theirs.id]);
  });

  test('nothing the other organisation sent changed the first organisation’s data', async () => {
    const ours = QueueView.parse((await call('POST', '/v1/getQueue', keys.acme, QUEUE)).json());
    expect(ours).toMatchObject({ state: 'paused', concurrency: 1 });
    expect(ours.enqueuedPullRequests.map((p) => p.prNumber)).toEqual([2]);
    const details = await call('POST', '/v1/getMergeQueueTestingDetails', keys.acme, {
      ...QUEUE,
      testRunId: ids.testRunId,
    });
    expect(details.status).toBe(200);

    const acme = { org_url_slug: 'acme', repo: REPO };
    const settings = await call('POST', '/v1/flaky-tests/get-repository-settings', keys.acme, acme);
    expect(settings.json()).toMatchObject({ quarantine: { enabled: true } });
    const beta = await call('POST', '/v1/flaky-tests/get-test-details', keys.acme, {
      ...acme,
      test_id: ids.testId,
    });
    expect(beta.json()).toMatchObject({
      test: { name: 'beta', quarantined: true, ticket: expect.any(Object) },
    });
    const quarantined = await call('POST', '/v1/flaky-tests/list-quarantined-tests', keys.acme, {
      ...acme,
      page_query: { page_size: 10 },
    });
    expect(quarantined.json()).toMatchObject({
      quarantined_tests: [{ test_case_id: ids.testId, quarantine_setting: 'ALWAYS_QUARANTINE' }],
    });
    const ticket = await call('GET', `/v1/flaky-tests/tickets/${TICKET}`, keys.acme);
    expect(ticket.json()).toMatchObject({ ticket: TICKET, tests: [{ test_id: ids.testId, name: 'beta' }] });
    expect((await call('GET', '/v1/flaky-tests/tickets/EVIL-1', keys.acme)).json()).toMatchObject({
      tests: [],
    });
    const flakyNow = await call('POST', '/v1/flaky-tests/list-unhealthy-tests', keys.acme, {
      ...acme,
      status: 'FLAKY',
      page_query: { page_size: 10 },
    });
    expect(flakyNow.json<Listed>().tests.map((t) => t.name)).toContain('alpha');

    const subscription = await call('GET', `/v1/webhooks/subscriptions/${ids.subscriptionId}`, keys.acme);
    expect(subscription.json()).toMatchObject({ id: ids.subscriptionId, url: hookUrl, enabled: true });
    const list = (await call('GET', '/v1/webhooks/subscriptions', keys.acme)).json<{
      subscriptions: { id: string }[];
    }>();
    expect(list.subscriptions.map((s) => s.id)).toEqual([ids.subscriptionId]);
    expect((await call('GET', `/v1/webhooks/deliveries/${ids.deliveryId}`, keys.acme)).status).toBe(200);
  });
});

describe('secrets at rest, in answers and in logs', () => {
  test('a webhook secret is in the creation answer only: every other webhook operation’s answer holds no whsec_', async () => {
    const first = secrets[0]!;
    const sub = `/v1/webhooks/subscriptions/${ids.subscriptionId}`;
    // Every webhook operation as the owner, with the answers an error gets too.
    const walk: Record<string, { url?: string; body?: object }[]> = {
      'GET /v1/webhooks/event-types': [{}],
      'GET /v1/webhooks/subscriptions': [{}],
      'GET /v1/webhooks/subscriptions/{id}': [
        { url: sub },
        { url: `/v1/webhooks/subscriptions/${PLACEHOLDER.subscriptionId}` },
      ],
      'PATCH /v1/webhooks/subscriptions/{id}': [
        { url: sub, body: { description: 'deploys' } },
        { url: sub, body: { enabled: true } },
        { url: sub, body: { secret: first } },
        { url: sub, body: { url: 'ftp://x' } },
      ],
      'GET /v1/webhooks/subscriptions/{id}/deliveries': [
        { url: `${sub}/deliveries` },
        { url: `${sub}/deliveries?limit=1` },
        { url: `${sub}/deliveries?status=succeeded` },
      ],
      'GET /v1/webhooks/deliveries/{id}': [{ url: `/v1/webhooks/deliveries/${ids.deliveryId}` }],
      'POST /v1/webhooks/subscriptions': [{ body: { url: hookUrl, enabled: false } }],
      'DELETE /v1/webhooks/subscriptions/{id}': [],
    };
    const doc = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const webhookOps = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.tags?.includes('webhooks'))
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    expect(Object.keys(walk).sort()).toEqual(webhookOps.sort());

    let created: { id: string; secret: string } | undefined;
    for (const [op, requests] of Object.entries(walk))
      for (const request of requests) {
        const { method, path } = operation(op);
        const res = await call(method, request.url ?? path, keys.acme, request.body);
        if (op === 'POST /v1/webhooks/subscriptions') {
          // The one answer with a secret: its own, new one, and no other.
          created = res.json();
          expect(res.body.match(/whsec_/g)).toHaveLength(1);
          secrets.push(created!.secret);
        } else
          expect({ op, request, body: res.body }).toEqual({
            op,
            request,
            body: expect.not.stringContaining('whsec_'),
          });
        for (const secret of secrets.slice(0, 2))
          expect(res.body).not.toContain(secret.slice('whsec_'.length));
      }
    // The new subscription read back, then deleted: neither answer shows its secret.
    const read = await call('GET', `/v1/webhooks/subscriptions/${created!.id}`, keys.acme);
    expect(read.body).not.toContain(created!.secret.slice('whsec_'.length));
    const removed = await call('DELETE', `/v1/webhooks/subscriptions/${created!.id}`, keys.acme);
    expect([removed.status, removed.body]).toEqual([204, '']);
  });

  test('no row of any table holds a key; api_keys keeps SHA-256 hashes and 11-character prefixes', async () => {
    const { rows: tables } = await api.pool.query<{ name: string }>(
      "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    for (const { name } of tables) {
      const { rows: dump } = await api.pool.query<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM ${name} t`,
      );
      for (const { row } of dump)
        for (const key of Object.values(keys)) {
          expect(row).not.toContain(key);
          expect(row).not.toContain(key.slice(11));
        }
    }
    const { rows: stored } = await api.pool.query<{ prefix: string; key_hash: Buffer }>(
      'SELECT prefix, key_hash FROM api_keys',
    );
    const hashes = stored.map((r) => r.key_hash.toString('hex')).sort();
    const expected = Object.values(keys).map((k) => createHash('sha256').update(k).digest('hex'));
    expect(hashes).toEqual(expected.sort());
    for (const r of stored) expect(r.prefix).toHaveLength(11);
  });

  test('the log of the whole scenario holds no key, no refused key and no signing secret', async () => {
    const refused = `ry_${'x'.repeat(43)}`;
    expect((await api.post('/v1/getQueue', QUEUE, refused)).status).toBe(401);
    expect((await api.post('/v1/getQueue', QUEUE, keys.revoked)).status).toBe(401);
    const text = api.log.text();
    expect(text.length).toBeGreaterThan(1000);
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of [...Object.values(keys), refused, TEST_PAGE_TOKEN_SECRET, ...secrets]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(11));
    }
  });
});
