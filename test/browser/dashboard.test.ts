/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) on the real stack: a
 * listening API built by buildApp with the real merge-queue service over Temporal, a real worker
 * (queue-harness: bundled workflows, real activities, a real git repository) and PostgreSQL.
 *
 * A person signs in with an API key, watches the queue test a batch on top of main and merge it
 * while the page refreshes itself (no reload), opens the PR that failed and reads why, looks at the
 * queue's metrics, quarantines a flaky test from its page and sees the override, then reaches a
 * healthy test from the repository's list of every test and reads why it is healthy. Each page is
 * kept as a screenshot (docs/screenshots/ with TEST_UPDATE_SCREENSHOTS=1).
 *
 * On every page it visits, what a person reads is words (contract/words.ts), never a code
 * (ALL_CAPS_WITH_UNDERSCORES, snake_case) outside the whole record; every link of the queue, PR and
 * flaky-test pages answers 200, a PR that conflicted included (its run never started: no log link,
 * the conflict instead); /favicon.ico answers on every page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { createApiKeyStore } from '../../stores/api-keys';
import { createRunLogStore } from '../../test-runs/store/run-logs';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../queue-client';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createUiSessionStore } from '../../api/dashboard/store/sessions';
import { buildTestApp, type CapturedLog } from '../support/app';
import { requireTestEnv } from '../support/env';
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';
import { CODE_SHAPED } from '../../contract';
import { junit } from '../integration/flaky/harness';
import { launchChromium, screenshot } from './browser';

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let log: CapturedLog;
let browser: Browser;
let page: Page;
let base: string;
let key: string;
let slug: string;

const api = (url: string, payload: object) =>
  app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': key }, payload });

beforeAll(async () => {
  // Runs hold until the test writes $GATE/go; a PR adding BROKEN fails its runs at once.
  h = await startQueueHarness({ command: 'test ! -e BROKEN && while [ ! -e $GATE/go ]; do sleep 0.1; done' });
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: `ui-${randomUUID()}`,
    callTimeoutMs: 30_000,
  });
  slug = (
    await h.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
      h.key.organisationId,
    ])
  ).rows[0]!.slug;
  key = (await createApiKeyStore(h.pool).create(slug, 'dashboard')).key;
  ({ app, log } = await buildTestApp(h.pool, {
    mergeQueue: createMergeQueueService(createQueueClient(temporal), { runLogs: createRunLogStore(h.pool) }),
    ui: {
      sessions: createUiSessionStore(h.pool),
      pool: h.pool,
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
  const codes = text.split(/\s+/).filter((word) => CODE_SHAPED.test(word));
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
  await h?.close();
});

test('sign in, watch the queue merge without a reload, and read why a PR failed', async () => {
  await h.createQueue({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 0.02, concurrency: 2 });
  h.openPr(1, { 'one.txt': '1\n' });
  h.openPr(2, { 'two.txt': '2\n' });
  h.openPr(3, { BROKEN: 'yes\n' });
  // #4 changes #1's new file another way: its test branch cannot be built on top of #1.
  h.openPr(4, { 'one.txt': '4\n' });
  for (const n of [1, 2, 3, 4]) await h.submit(n);

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
  await page.getByText(h.key.repo.name).waitFor();
  await expectWordsOnly();
  await screenshot(page, 'queues');

  await page.click(`a:has-text("${h.key.repo.name}")`);
  await page.waitForURL(/\/ui\/queue\?/);
  // The batch of #1 and #2 is tested on top of main; the page marks itself to prove it never reloads.
  await page.locator('[data-testid=run].run-batch').first().waitFor();
  await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));
  expect(await page.locator('[data-testid=run] .layer.root').first().textContent()).toContain('main');
  await expectWordsOnly();
  await screenshot(page, 'queue');

  fs.writeFileSync(path.join(h.gate, 'go'), '');
  const recent = page.locator('[data-testid=recent]');
  await recent.locator('tr[data-pr="1"] .state-merged').waitFor();
  await recent.locator('tr[data-pr="2"] .state-merged').waitFor();
  await recent.locator('tr[data-pr="3"] .state-failed').waitFor({ timeout: 45_000 });
  await recent.locator('tr[data-pr="4"] .state-failed').waitFor({ timeout: 45_000 });
  expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
  expect(await recent.locator('tr[data-pr="4"] td').nth(2).textContent()).toBe(
    'It conflicts with the target branch or a PR ahead of it.',
  );
  await expectWordsOnly();
  await expectLinksAnswer();
  await screenshot(page, 'queue-after');

  // The PR that conflicted: its run never started, so it has no log link but the conflict itself.
  await recent.locator('tr[data-pr="4"] a').click();
  await page.waitForURL(/\/ui\/pr\?.*pr=4/);
  expect(await page.locator('[data-testid=why]').textContent()).toMatch(
    /#4 conflicts with #1\b.*in file one\.txt/,
  );
  expect(await page.locator('[data-testid=decided-by]').textContent()).toMatch(
    /it never started: #4 conflicts with #1\b/,
  );
  await expectWordsOnly();
  await expectLinksAnswer();
  for (const n of [1, 2]) {
    await page.goto(
      `${base}/ui/pr?${new URLSearchParams({ ...h.key.repo, branch: 'main', pr: String(n) }).toString()}`,
    );
    expect(await page.locator('[data-testid=pr-state]').textContent()).toBe('merged');
    await expectWordsOnly();
    await expectLinksAnswer();
  }
  await page.goto(`${base}/ui/queue?${new URLSearchParams({ ...h.key.repo, branch: 'main' }).toString()}`);

  await recent.locator('tr[data-pr="3"] a').click();
  await page.waitForURL(/\/ui\/pr\?/);
  expect(await page.locator('[data-testid=pr-state]').textContent()).toBe('failed');
  const why = (await page.locator('[data-testid=why]').textContent()) ?? '';
  expect(why).toMatch(/^Failed: the queue's test command failed/);
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

  await page.goto(`${base}/ui/metrics?${new URLSearchParams({ ...h.key.repo, branch: 'main' }).toString()}`);
  await page.locator('[data-testid=charts] canvas').nth(4).waitFor();
  await expectWordsOnly();
  await screenshot(page, 'metrics');
}, 90_000);

test('quarantine a flaky test from its page and see the override', async () => {
  const repo = h.key.repo;
  const upload = await api('flaky-tests/upload', {
    org_url_slug: slug,
    repo,
    upload_id: 'ci-1',
    commit_sha: 'c0ffee1',
    branch: 'main',
    codeowners: '* @acme/checkout-team\n',
    files: [{ name: 'junit.xml', content: junit({ 'applies the discount': 'FP', 'adds an item': 'P' }) }],
  });
  expect(upload.statusCode).toBe(200);
  const settings = await api('flaky-tests/update-repository-settings', {
    org_url_slug: slug,
    repo,
    quarantine: { enabled: true },
  });
  expect(settings.statusCode).toBe(200);

  await page.goto(`${base}/ui/flaky`);
  await page.click(`a:has-text("${repo.name}")`);
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

  // Every test of the repository, a healthy one too, is reached by clicking from its page.
  await page.click('[data-testid=all-tests] a');
  await page.waitForURL(/\/ui\/flaky\/repository\/tests\?/);
  expect(await page.locator('[data-testid=test-count]').textContent()).toContain('of 2,');
  await expectWordsOnly();
  await expectLinksAnswer();
  await page.locator('[data-testid=tests] a:has-text("adds an item")').click();
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
