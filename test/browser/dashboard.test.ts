/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) after `npm run demo`:
 * the test plays the demo's own scenario (scripts/lib/demo-scenario.ts, the one `npm run demo` plays)
 * through the HTTP API of a listening app built by buildApp, with the real merge-queue service over
 * Temporal, a real worker and executor (queue-harness: bundled workflows, real activities, the local
 * git host whose root the demo pushes to) and a PostgreSQL database of its own (the demo's `dev`
 * organisation and local/demo/app, as under `npm start`).
 *
 * A person signs in with an API key once the demo's queue exists and watches it test the first batch
 * on top of main and merge or fail every PR while the page refreshes itself (no reload); then opens
 * each PR the demo leaves (four merged, #3 failed by its tests, #5 failed by its conflict with #4) and
 * reads why, the log of #3's deciding run ending with the failing test, the queue's metrics; then,
 * after a CI upload of a flaky test (the demo makes none), quarantines it from its page and sees the
 * override, and reaches the demo's test `calc`/`adds` from the repository's list of every test and
 * reads why it is healthy. Each page is kept as a screenshot (docs/screenshots/ with
 * TEST_UPDATE_SCREENSHOTS=1).
 *
 * On every page it visits, what a person reads is words (contract/words.ts), never a code
 * (ALL_CAPS_WITH_UNDERSCORES, snake_case) outside the whole record; every link of the queue, PR and
 * flaky-test pages answers 200, a PR that conflicted included (its run never started: no log link,
 * the conflict instead); /favicon.ico answers on every page.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { createApiKeyStore } from '../../stores/api-keys';
import { createRunLogStore } from '../../test-runs/store/run-logs';
import { judgeTestsWith } from '../../test-runs/judge';
import { createFlakyStore } from '../../flaky/service';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../queue-client';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createUiSessionStore } from '../../api/dashboard/store/sessions';
import { buildTestApp, type CapturedLog } from '../support/app';
import { requireTestEnv } from '../support/env';
import { createScratchDatabase } from '../support/postgres';
import { startQueueDeployment, type QueueDeployment } from '../support/queue-harness';
import { endQueueWorkflows } from '../support/queue-teardown';
import { sharedSyncBroker } from '../support/shared-brokers';
import { CODE_SHAPED, type RepositoryKey } from '../../contract';
import { EXAMPLE_REPO } from '../../api/schemas/examples';
import { DEMO_PRS } from '../../scripts/lib/demo-project';
import { playDemoScenario, type DemoOutcome } from '../../scripts/lib/demo-scenario';
import { junit } from '../integration/flaky/harness';
import { launchChromium, screenshot } from './browser';

/** The organisation `npm start` makes and `npm run demo` uses. */
const ORG = 'dev';

let deployment: QueueDeployment;
let temporal: TemporalGateway;
let app: FastifyInstance;
let log: CapturedLog;
let browser: Browser;
let page: Page;
let base: string;
let key: string;
let organisationId: string;
/** What the demo left: its repository and how each PR ended; set by the first test. */
let demo: DemoOutcome | undefined;

const api = (url: string, payload: object) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': key }, payload });
const pageOf = (route: string, repo: RepositoryKey, extra: Record<string, string> = {}) =>
  `${base}/ui/${route}?${new URLSearchParams({ ...repo, branch: 'main', ...extra }).toString()}`;
const label = (repo: RepositoryKey) => `${repo.host}/${repo.owner}/${repo.name}`;

beforeAll(async () => {
  // A database of its own, as `npm start` has: the demo's organisation and local/demo/app are its own.
  const databaseUrl = await createScratchDatabase('ui', requireTestEnv('TEST_PG_TEMPLATE'));
  // Runs' JUnit judged by the flaky-test store, as the worker of `npm start` does: the tests exist.
  deployment = await startQueueDeployment({
    databaseUrl,
    judgeTests: (pool) => judgeTestsWith(createFlakyStore(pool)),
  });
  const { pool } = deployment;
  // The API starts the queues it creates on the deployment's task queue, as the demo's createQueue needs.
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: deployment.taskQueue,
    callTimeoutMs: 30_000,
  });
  key = (await createApiKeyStore(pool).create(ORG, 'dashboard')).key;
  organisationId = (await pool.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [ORG]))
    .rows[0]!.id;
  ({ app, log } = await buildTestApp(pool, {
    mergeQueue: createMergeQueueService(createQueueClient(temporal), { runLogs: createRunLogStore(pool) }),
    ui: {
      sessions: createUiSessionStore(pool),
      pool,
      temporalUi: { url: 'http://127.0.0.1:8233', namespace: 'default' },
      pollMs: 500,
    },
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
}, 60_000);

/** The page's visible text (a closed <details>, the whole record, is not visible) has no code. */
async function expectWordsOnly(): Promise<void> {
  const text = await page.innerText('body');
  // An API key's public prefix (`ry_` and 8 base64url characters, the actor of a dashboard change) is a
  // name the operator knows from the key list, as a commit's sha is; now and then it is all lower case
  // and digits, which is code-shaped (1 run in about 100).
  const codes = text
    .split(/\s+/)
    .filter((word) => CODE_SHAPED.test(word) && !/(^|:)ry_[A-Za-z0-9_-]{8}:?$/.test(word));
  expect({ url: page.url(), codes }).toEqual({ url: page.url(), codes: [] });
}

/** Every same-origin link of the page (and its icon) answers 200 to the signed-in browser. */
async function expectLinksAnswer(): Promise<void> {
  const hrefs = await page.$$eval('a[href], link[href]', (all) =>
    all.map((a) => (a as unknown as { href: string }).href),
  );
  const own = [...new Set(hrefs.filter((href) => href.startsWith(base)))];
  expect(own).toContain(`${base}/favicon.ico`);
  const answers = await Promise.all(own.map(async (url) => [url, (await page.request.get(url)).status()]));
  expect(answers.filter(([, status]) => status !== 200)).toEqual([]);
}

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await temporal?.close();
  // The demo's workflows end with the test (the deployment ends only what its own harnesses made).
  if (deployment)
    await endQueueWorkflows(
      deployment.client,
      { organisationId, repo: demo?.repo ?? { ...EXAMPLE_REPO }, targetBranch: 'main' },
      DEMO_PRS.map((pr) => pr.n),
    );
  await deployment?.close();
}, 60_000);

/** Signs in on the sign-in page the dashboard sends a stranger to, and lands on the queues list. */
async function signIn(): Promise<void> {
  await page.goto(`${base}/`);
  expect(page.url()).toBe(`${base}/ui/sign-in`);
  expect(await page.textContent('main')).toContain('.data/dev-api-key');
  await screenshot(page, 'sign-in');
  await page.fill('#key', key);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/ui/queues`);
  expect(page.url()).not.toContain(key);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'railyard-session')).toMatchObject({
    httpOnly: true,
    sameSite: 'Lax',
  });
}

test('sign in, watch the demo queue merge without a reload, and read why each PR ended', async () => {
  const said: string[] = [];
  let watching!: () => void;
  const queueOpen = new Promise<void>((resolve) => (watching = resolve));
  const played = playDemoScenario({
    api: { url: base, key },
    gitRoot: deployment.gitRoot,
    temporalUi: 'http://127.0.0.1:8233',
    say: (line) => said.push(line),
    // As the fixtures do: git from the worker's small helper process, not forked from the jest worker.
    git: (cwd, args, env) =>
      sharedSyncBroker()
        .run('git', ['-C', cwd, ...args], { env })
        .trim(),
    // Once the demo's queue exists, a person signs in and opens it before any PR is submitted.
    async afterQueueCreated() {
      await signIn();
      await page.locator('a:text-is("local/demo/app")').waitFor();
      await expectWordsOnly();
      await screenshot(page, 'queues');
      await page.click('a:text-is("local/demo/app")');
      await page.waitForURL(/\/ui\/queue\?/);
      // The page marks itself to prove it never reloads while the demo runs.
      await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));
      watching();
    },
  });
  await Promise.race([queueOpen, played]);
  // The demo's first batch (#1 #2 #3) is tested on top of main: read at once, while it runs.
  const root = await page.waitForFunction(
    () => {
      const doc = (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document;
      return doc.querySelector('[data-testid=run].run-batch .layer.root')?.textContent ?? false;
    },
    null,
    { polling: 50 },
  );
  expect(await root.jsonValue()).toContain('main');
  await expectWordsOnly();
  await screenshot(page, 'queue');

  demo = await played;
  const repo = demo.repo;
  expect(label(repo)).toBe('local/demo/app');
  expect(Object.fromEntries(demo.prs.map((pr) => [pr.n, pr.state]))).toEqual({
    1: 'merged',
    2: 'merged',
    3: 'failed',
    4: 'merged',
    5: 'failed',
    6: 'merged',
  });
  // The demo's summary prints one log, #3's (#5's run never started), and that log answers.
  expect(said).toContainEqual(expect.stringMatching(/^\nDone in \d+ s:$/));
  const printedLogs = said.filter((line) => line.includes('log: curl')).map((line) => line.split(' ').pop()!);
  expect(printedLogs).toEqual([demo.prs.find((pr) => pr.n === 3)!.logUrl]);
  expect(demo.prs.find((pr) => pr.n === 5)!.logUrl).toBeUndefined();
  const summaryLog = await fetch(new URL(printedLogs[0]!, base), { headers: { 'x-api-token': key } });
  expect(summaryLog.status).toBe(200);

  const recent = page.locator('[data-testid=recent]');
  for (const pr of demo.prs) await recent.locator(`tr[data-pr="${pr.n}"] .state-${pr.state}`).waitFor();
  expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
  expect(await recent.locator('tr[data-pr="5"] td').nth(2).textContent()).toBe(
    'It conflicts with the target branch or a PR ahead of it.',
  );
  await expectWordsOnly();
  await expectLinksAnswer();
  await screenshot(page, 'queue-after');

  // The PR that conflicted: its run never started, so it has no log link but the conflict itself.
  await recent.locator('tr[data-pr="5"] a').click();
  await page.waitForURL(/\/ui\/pr\?.*pr=5/);
  expect(await page.locator('[data-testid=why]').textContent()).toMatch(
    /#5 conflicts with #4\b.*in file README\.md/,
  );
  expect(await page.locator('[data-testid=decided-by]').textContent()).toMatch(
    /it never started: #5 conflicts with #4\b/,
  );
  await expectWordsOnly();
  await expectLinksAnswer();
  for (const n of [1, 2, 4, 6]) {
    await page.goto(pageOf('pr', repo, { pr: String(n) }));
    expect(await page.locator('[data-testid=pr-state]').textContent()).toBe('merged');
    expect(await page.locator('[data-testid=why]').textContent()).toMatch(/^Merged: /);
    await expectWordsOnly();
    await expectLinksAnswer();
  }
  await page.goto(pageOf('queue', repo));

  await recent.locator('tr[data-pr="3"] a').click();
  await page.waitForURL(/\/ui\/pr\?/);
  expect(await page.locator('[data-testid=pr-state]').textContent()).toBe('failed');
  const why = (await page.locator('[data-testid=why]').textContent()) ?? '';
  expect(why).toMatch(/^Failed: the queue's test command failed/);
  expect(why).toContain('calc › adds');
  // The run that decided it is named in words, with its log.
  expect(await page.locator('[data-testid=decided-by]').textContent()).toMatch(
    /^Decided by the (batch |bisection )?run (of )?.*#3.*, log\.$/,
  );
  await expectWordsOnly();
  await expectLinksAnswer();
  // Every transition's reason is in the timeline; a log link is shown when the record carries one.
  await page.locator('[data-testid=timeline] .state-failed').first().waitFor();
  const temporalLink = await page.locator('[data-testid=temporal-link]').getAttribute('href');
  expect(temporalLink).toContain(`/namespaces/default/workflows/${encodeURIComponent('pr/')}`);
  await screenshot(page, 'pull-request');
  // The page links its runs' logs in words; the dashboard serves them to the signed-in organisation.
  expect(await page.locator('[data-testid=run-log]').first().textContent()).toMatch(
    /^log of the (batch |bisection )?run/,
  );
  // Every log link names the PR page it is on (`?pr=3`), so the log starts with #3, not the batch's first.
  const logHrefs = await page.$$eval('[data-testid=run-log], [data-testid=decided-log]', (all) =>
    all.map(
      (a) => (a as unknown as { getAttribute(name: string): string | null }).getAttribute('href') ?? '',
    ),
  );
  expect(logHrefs.length).toBeGreaterThan(0);
  expect(logHrefs.filter((href) => !href.endsWith('/log?pr=3'))).toEqual([]);
  const logHref = await page.locator('[data-testid=decided-log]').getAttribute('href');
  const logAnswer = await page.request.get(`${base}${logHref!}`);
  expect(logAnswer.status()).toBe(200);
  const logText = await logAnswer.text();
  expect(logText).toMatch(/^# opened from pull request #3: /);
  expect(logText).toContain('exit code');
  // The log ends with the failing test and its message from the run's JUnit (the demo prints nothing).
  expect(logText).toContain('expected 3, got -1');

  await page.goto(pageOf('metrics', repo));
  await page.locator('[data-testid=charts] canvas').nth(4).waitFor();
  await expectWordsOnly();
  await screenshot(page, 'metrics');
}, 90_000);

test('quarantine a flaky test from its page, and read why the demo test calc/adds is healthy', async () => {
  if (!demo) throw new Error('the demo did not finish (the first test failed)');
  const repo = demo.repo;
  // The demo makes no flaky test: a CI upload of the repository's results adds one.
  const upload = await api('flaky-tests/upload', {
    org_url_slug: ORG,
    repo,
    upload_id: 'ci-1',
    commit_sha: 'c0ffee1',
    branch: 'main',
    codeowners: '* @acme/checkout-team\n',
    files: [{ name: 'junit.xml', content: junit({ 'applies the discount': 'FP' }) }],
  });
  expect(upload.statusCode).toBe(200);
  const settings = await api('flaky-tests/update-repository-settings', {
    org_url_slug: ORG,
    repo,
    quarantine: { enabled: true },
  });
  expect(settings.statusCode).toBe(200);

  await page.goto(`${base}/ui/flaky`);
  await page.click(`a:text-is("${label(repo)}")`);
  await page.locator('[data-testid=flaky] a:has-text("applies the discount")').click();
  await page.waitForURL(/\/ui\/flaky\/tests\//);
  expect(await page.locator('[data-testid=test-status]').textContent()).toBe('flaky');
  expect(await page.locator('[data-testid=override]').textContent()).toContain('no override');
  await expectWordsOnly();
  await page.locator('[data-testid=charts] canvas').first().waitFor();
  await page.selectOption('#override', 'ALWAYS_QUARANTINE');
  await page.fill('#reason', 'fails one run in ten on CI');
  await page.click('button:has-text("Set override")');
  await page.locator('[data-testid=override]:has-text("always quarantine")').waitFor();
  expect(await page.locator('[data-testid=override]').textContent()).toContain('fails one run in ten on CI');
  expect(await page.locator('[data-testid=quarantine]').textContent()).toContain('yes, by its override');
  await expectWordsOnly();
  await screenshot(page, 'flaky-test');

  await page.click('a:has-text("←")');
  await page.locator('[data-testid=quarantined] a:has-text("applies the discount")').waitFor();
  await expectWordsOnly();
  await expectLinksAnswer();
  await screenshot(page, 'flaky-repository');

  // Every test of the repository is reached by clicking from its page: the demo's three and the upload's.
  await page.click('[data-testid=all-tests] a');
  await page.waitForURL(/\/ui\/flaky\/repository\/tests\?/);
  expect(await page.locator('[data-testid=test-count]').textContent()).toContain('of 4,');
  for (const name of ['adds', 'subtracts', 'multiplies'])
    await page.locator(`[data-testid=tests] a:text-is("${name}")`).waitFor();
  await expectWordsOnly();
  await expectLinksAnswer();
  // The test README names: it failed in #3's runs and passed in the others'.
  await page.locator('[data-testid=tests] a:text-is("adds")').click();
  await page.waitForURL(/\/ui\/flaky\/tests\//);
  expect(await page.locator('[data-testid=test-status]').textContent()).toBe('healthy');
  // Why it is healthy, in words: too few runs yet to judge it.
  expect(await page.locator('[data-testid=status-evidence]').textContent()).toMatch(/^Healthy: .*judge/);
  await expectWordsOnly();
  await expectLinksAnswer();

  await page.click('button:has-text("Sign out")');
  await page.waitForURL(`${base}/ui/sign-in`);
  await page.goto(`${base}/ui/queues`);
  expect(page.url()).toBe(`${base}/ui/sign-in`);
  // Nothing the browser sent put the key in a log line.
  expect(log.text()).not.toContain(key);
}, 60_000);
