/**
 * What the fuzz run seeds before schemathesis starts, so the hooks (railyard_hooks.py) can aim
 * requests past validation and "not found":
 *  - merge queue: a queue on `main` of a generated repository with 20 open PRs;
 *  - flaky tests: four JUnit uploads of the same repository through the real upload endpoint (three
 *    as JSON, one as multipart), which make tests flaky (a fail and a pass on one commit), broken
 *    (failing on three commits in a row) and healthy; quarantining on, one test always quarantined,
 *    a ticket linked to two tests, and a page token of every flaky-test list;
 *  - webhooks: a subscription to every event at a local receiver (the stack allows loopback
 *    receivers), made before the uploads so their status changes are delivered to it, the ids of
 *    those deliveries, and a few disabled subscriptions for DELETE to remove.
 * Everything goes through the HTTP API with the run's key, as a client would do it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPool } from '../../stores/db';
import { createApiKeyStore } from '../../stores/api-keys';
import { createGitWorld } from '../lib/git-world';
import type { Stack } from '../lib/stack';

export const REPO = { host: 'github.com', owner: 'fuzz', name: 'app' };
export const ORG = 'fuzz';
const BRANCH = 'main';
const SEEDED_PRS = 20;
const DOOMED_SUBSCRIPTIONS = 10;
export const TICKET = 'FUZZ-1';

/** What the hooks get (as JSON in FUZZ_SEED): every name, id and token they may plug in. */
export interface Seeded {
  repo: { host: string; owner: string; name: string };
  org: string;
  branch: string;
  prs: number;
  flaky: {
    /** Every seeded test: its id and the identity fields check-quarantine finds it by. */
    tests: { id: string; name: string; classname: string; parent: string }[];
    ticket: string;
    /** The range `failing` was issued for. */
    range: { start_time: string; end_time: string };
    /** next_page_token of each list's first page of size 1. */
    tokens: { failing: string; flaky: string; broken: string; quarantined: string };
  };
  webhooks: {
    /** The subscription the deliveries belong to, then one more for PATCH. */
    subscriptions: string[];
    /** Disabled subscriptions that DELETE may remove (each only once). */
    doomed: string[];
    deliveries: string[];
    /** The local receiver (answers 200; `/fail` answers 500). */
    receiver: string;
  };
}

export interface SeedResult {
  key: string;
  seeded: Seeded;
  /** Stops the local webhook receiver. */
  close(): Promise<void>;
}

/** A webhook receiver on loopback: 200 to everything but paths under /fail, which get a 500. */
async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Client {
  call<T>(method: string, route: string, body?: unknown, expect?: number): Promise<T>;
  upload(form: FormData): Promise<void>;
}

function client(baseUrl: string, key: string): Client {
  return {
    async call<T>(method: string, route: string, body?: unknown, expect = 200): Promise<T> {
      const res = await fetch(`${baseUrl}${route}`, {
        method,
        headers: {
          'x-api-token': key,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (res.status !== expect)
        throw new Error(`seeding: ${method} ${route} answered ${res.status}: ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    async upload(form: FormData): Promise<void> {
      const res = await fetch(`${baseUrl}/v1/flaky-tests/upload`, {
        method: 'POST',
        headers: { 'x-api-token': key },
        body: form,
      });
      if (res.status !== 200)
        throw new Error(`seeding: multipart upload answered ${res.status}: ${await res.text()}`);
    },
  };
}

// The tests of every upload: suite `checkout`, class `shop.Cart`.
const SUITE = 'checkout';
const CLASSNAME = 'shop.Cart';
const FLAKY = ['flaky_total', 'flaky_discount', 'flaky_currency'];
const BROKEN = ['broken_tax', 'broken_shipping'];
const HEALTHY = [
  'adds_item',
  'removes_item',
  'empties_cart',
  'keeps_session',
  'rounds_prices',
  'lists_items',
];
const SKIPPED = 'skipped_legacy';

/** One JUnit file: `failing` fail (with a message that varies by test), the others pass. */
function junit(failing: readonly string[]): string {
  const cases = [...FLAKY, ...BROKEN, ...HEALTHY].map((name) =>
    failing.includes(name)
      ? `<testcase classname="${CLASSNAME}" name="${name}" time="0.2"><failure message="expected 3 but was ${name.length}" type="AssertionError">at Cart.${name} (cart.test.js:12)</failure></testcase>`
      : `<testcase classname="${CLASSNAME}" name="${name}" time="0.1"/>`,
  );
  cases.push(`<testcase classname="${CLASSNAME}" name="${SKIPPED}"><skipped/></testcase>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="${SUITE}" tests="${cases.length}">${cases.join('')}</testsuite></testsuites>`;
}

const sha = (n: number) => n.toString(16).padStart(40, 'c');

async function seedFlaky(api: Client): Promise<Seeded['flaky']> {
  const base = { org_url_slug: ORG, repo: REPO, branch: BRANCH };
  // Commit 1 fails the flaky and broken tests, its retry passes the flaky ones (same-commit
  // disagreement: flaky); commits 2 and 3 fail the broken ones again (three failing commits: broken).
  const json = [
    { upload_id: 'seed-1', commit_sha: sha(1), attempt: 1, failing: [...FLAKY, ...BROKEN] },
    { upload_id: 'seed-1-retry', commit_sha: sha(1), attempt: 2, failing: BROKEN },
    { upload_id: 'seed-2', commit_sha: sha(2), attempt: 1, failing: BROKEN },
  ];
  for (const u of json)
    await api.call('POST', '/v1/flaky-tests/upload', {
      ...base,
      upload_id: u.upload_id,
      commit_sha: u.commit_sha,
      attempt: u.attempt,
      job_name: 'unit',
      job_url: 'https://ci.example.com/jobs/1',
      codeowners: `* @fuzz/owners\n`,
      files: [{ name: 'junit.xml', content: junit(u.failing) }],
    });
  const form = new FormData();
  form.set('org_url_slug', ORG);
  for (const [field, value] of Object.entries(REPO)) form.set(`repo.${field}`, value);
  form.set('upload_id', 'seed-3');
  form.set('commit_sha', sha(3));
  form.set('branch', BRANCH);
  form.set('pr_number', '7');
  form.set('file', new Blob([junit(BROKEN)], { type: 'application/xml' }), 'junit.xml');
  await api.upload(form);

  const scope = { org_url_slug: ORG, repo: REPO };
  await api.call('POST', '/v1/flaky-tests/update-repository-settings', {
    ...scope,
    quarantine: { enabled: true, auto_quarantine: true },
    actor: 'fuzz seed',
  });
  const named = [...FLAKY, ...BROKEN, ...HEALTHY, SKIPPED].map((name) => ({
    name,
    classname: CLASSNAME,
    parent: SUITE,
  }));
  const check = await api.call<{ tests: { test_id: string; name: string | null; known: boolean }[] }>(
    'POST',
    '/v1/flaky-tests/check-quarantine',
    { ...scope, failed_tests: named },
  );
  const unknown = check.tests.filter((t) => !t.known).map((t) => t.name);
  if (unknown.length > 0) throw new Error(`seeding: uploaded tests not found: ${unknown.join(', ')}`);
  const tests = named.map((t, i) => ({ ...t, id: check.tests[i]!.test_id }));
  const idOf = (name: string) => tests.find((t) => t.name === name)!.id;

  await api.call('POST', '/v1/flaky-tests/set-quarantine-override', {
    ...scope,
    test_id: idOf(HEALTHY[0]!),
    override: 'ALWAYS_QUARANTINE',
    reason: 'seeded by the fuzz run',
  });
  for (const name of [FLAKY[0]!, BROKEN[0]!])
    await api.call('POST', '/v1/flaky-tests/link-ticket-to-test-case', {
      repo: REPO,
      test_case_id: idOf(name),
      external_ticket_id: TICKET,
    });

  const now = Date.now();
  const range = {
    start_time: new Date(now - 24 * 3_600_000).toISOString(),
    end_time: new Date(now + 24 * 3_600_000).toISOString(),
  };
  const token = async (route: string, extra: object): Promise<string> => {
    const page = await api.call<{ page: { next_page_token: string } }>('POST', route, {
      ...scope,
      ...extra,
      page_query: { page_size: 1 },
    });
    if (page.page.next_page_token === '') throw new Error(`seeding: ${route} has a single page`);
    return page.page.next_page_token;
  };
  return {
    tests,
    ticket: TICKET,
    range,
    tokens: {
      failing: await token('/v1/flaky-tests/list-failing-tests', range),
      flaky: await token('/v1/flaky-tests/list-unhealthy-tests', { status: 'FLAKY' }),
      broken: await token('/v1/flaky-tests/list-unhealthy-tests', { status: 'BROKEN' }),
      quarantined: await token('/v1/flaky-tests/list-quarantined-tests', {}),
    },
  };
}

async function waitForDeliveries(api: Client, subscription: string, atLeast: number): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await api.call<{ deliveries: { id: string }[] }>(
      'GET',
      `/v1/webhooks/subscriptions/${subscription}/deliveries?limit=100`,
    );
    if (page.deliveries.length >= atLeast) return page.deliveries.map((d) => d.id);
    if (Date.now() > deadline)
      throw new Error(`seeding: ${page.deliveries.length} webhook deliveries after 60 s (${atLeast} wanted)`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function seed(stack: Stack): Promise<SeedResult> {
  const world = await createGitWorld(stack.gitRoot, REPO, {
    '.railyard/merge-queue.json': JSON.stringify({ version: 1, command: 'true' }),
  });
  world.openPrs(
    Array.from({ length: SEEDED_PRS }, (_, i) => ({
      number: i + 1,
      title: `PR ${i + 1}`,
      files: { [`f${i}`]: 'x\n' },
    })),
  );
  const pool = createPool(stack.databaseUrl, { max: 2 });
  const key = await createApiKeyStore(pool)
    .create(ORG, 'fuzz run')
    .finally(() => pool.end());
  const api = client(stack.apiUrl, key.key);
  const receiver = await startReceiver();
  try {
    await api.call('POST', '/v1/createQueue', { repo: REPO, targetBranch: BRANCH });
    const subscribe = async (body: object) =>
      (await api.call<{ id: string }>('POST', '/v1/webhooks/subscriptions', body, 201)).id;
    const main = await subscribe({ url: `${receiver.url}/hook`, description: 'fuzz: every event' });
    const failing = await subscribe({
      url: `${receiver.url}/fail`,
      eventTypes: ['test_case.status_changed'],
      description: 'fuzz: a receiver that answers 500',
    });
    const doomed: string[] = [];
    for (let i = 0; i < DOOMED_SUBSCRIPTIONS; i++)
      doomed.push(await subscribe({ url: `${receiver.url}/doomed/${i}`, enabled: false }));
    const flaky = await seedFlaky(api);
    // Five status changes (three flaky, two broken) and one override change, at least.
    const deliveries = await waitForDeliveries(api, main, 6);
    return {
      key: key.key,
      seeded: {
        repo: REPO,
        org: ORG,
        branch: BRANCH,
        prs: SEEDED_PRS,
        flaky,
        webhooks: { subscriptions: [main, failing], doomed, deliveries, receiver: receiver.url },
      },
      close: receiver.close,
    };
  } catch (err) {
    await receiver.close();
    throw err;
  }
}
