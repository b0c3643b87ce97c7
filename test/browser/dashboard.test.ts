/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) on the real stack: a
 * listening API built by buildApp with the real merge-queue service over Temporal, a real worker
 * (queue-harness: bundled workflows, real activities, a real git repository) and PostgreSQL.
 *
 * A person signs in with an API key, watches the queue test a batch on top of main and merge it
 * while the page refreshes itself (no reload), opens the PR that failed and reads why, looks at the
 * queue's metrics, quarantines a flaky test from its page and sees the override. Each page is kept
 * as a screenshot under docs/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { createApiKeyStore } from '../../stores/api-keys';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../queue-client';
import { createMergeQueueService } from '../../api/temporal/merge-queue-service';
import { createUiSessionStore } from '../../api/dashboard/store/sessions';
import { buildTestApp, type CapturedLog } from '../support/app';
import { requireTestEnv } from '../support/env';
import { startQueueHarness, type QueueHarness } from '../support/queue-harness';
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
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
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
  for (const n of [1, 2, 3]) await h.submit(n);

  await page.goto(`${base}/`);
  expect(page.url()).toBe(`${base}/ui/sign-in`);
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
  await screenshot(page, 'queues');

  await page.click(`a:has-text("${h.key.repo.name}")`);
  await page.waitForURL(/\/ui\/queue\?/);
  // The batch of #1 and #2 is tested on top of main; the page marks itself to prove it never reloads.
  await page.locator('[data-testid=run].run-batch').first().waitFor();
  await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));
  expect(await page.locator('[data-testid=run] .layer.root').first().textContent()).toContain('main');
  await screenshot(page, 'queue');

  fs.writeFileSync(path.join(h.gate, 'go'), '');
  const recent = page.locator('[data-testid=recent]');
  await recent.locator('tr[data-pr="1"] .state-merged').waitFor();
  await recent.locator('tr[data-pr="2"] .state-merged').waitFor();
  await recent.locator('tr[data-pr="3"] .state-failed').waitFor({ timeout: 45_000 });
  expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
  await screenshot(page, 'queue-after');

  await recent.locator('tr[data-pr="3"] a').click();
  await page.waitForURL(/\/ui\/pr\?/);
  expect(await page.locator('[data-testid=pr-state]').textContent()).toBe('failed');
  const why = (await page.locator('[data-testid=why]').textContent()) ?? '';
  expect(why).toMatch(/fail/i);
  // Every transition's reason is in the timeline; a log link is shown when the record carries one.
  await page.locator('[data-testid=timeline] .state-failed').first().waitFor();
  const temporalLink = await page.locator('[data-testid=temporal-link]').getAttribute('href');
  expect(temporalLink).toContain(`/namespaces/default/workflows/${encodeURIComponent('pr/')}`);
  await screenshot(page, 'pull-request');
  // The record links its run's log; the dashboard serves it to the signed-in organisation.
  const logHref = await page
    .locator('[data-testid=record-link][href^="/ui/test-runs/"]')
    .first()
    .getAttribute('href');
  const logText = await page.evaluate(async (href) => (await fetch(href!)).text(), logHref);
  expect(logText.length).toBeGreaterThan(0);

  await page.goto(`${base}/ui/metrics?${new URLSearchParams({ ...h.key.repo, branch: 'main' }).toString()}`);
  await page.locator('[data-testid=charts] canvas').nth(4).waitFor();
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
  await page.locator('[data-testid=charts] canvas').first().waitFor();
  await page.selectOption('#override', 'ALWAYS_QUARANTINE');
  await page.fill('#reason', 'fails one run in ten on CI');
  await page.click('button:has-text("Set override")');
  await page.locator('[data-testid=override]:has-text("ALWAYS_QUARANTINE")').waitFor();
  expect(await page.locator('[data-testid=override]').textContent()).toContain('fails one run in ten on CI');
  expect(await page.locator('[data-testid=quarantine]').textContent()).toContain('yes (ALWAYS_QUARANTINE)');
  await screenshot(page, 'flaky-test');

  await page.click('a:has-text("←")');
  await page.locator('[data-testid=quarantined] a:has-text("applies the discount")').waitFor();
  await screenshot(page, 'flaky-repository');

  await page.click('button:has-text("Sign out")');
  await page.waitForURL(`${base}/ui/sign-in`);
  await page.goto(`${base}/ui/queues`);
  expect(page.url()).toBe(`${base}/ui/sign-in`);
  // Nothing the browser sent put the key in a log line.
  expect(log.text()).not.toContain(key);
}, 60_000);
