/**
 * The dashboard's changes on the real stack: a signed-in session posts the forms its pages render
 * (their action and hidden fields, the session's CSRF token, a same-origin request) through the real
 * routes, the real merge-queue service over Temporal, a real worker and executor (queue-harness) and
 * PostgreSQL; each change is then seen where it lands: pause and resume in the queue's state (and
 * whether its PR is tested), restart and cancel in the PR's record, a ticket stored on the test and
 * shown by the API and the ticket's page. Refused: a change without a session (401) and one from
 * another origin (403), each leaving the queue as it was.
 *
 * One queue for the file (concurrency 1), its tests in order; each PR's run waits for its own gate file
 * ($GATE/go-<n>), so a test holds its PR in `testing` as long as it needs.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createUiSessionStore } from '../../../api/dashboard/store/sessions';
import { createQueueClient, createTemporalGateway, type TemporalGateway } from '../../../queue-client';
import { createMergeQueueService } from '../../../api/temporal/merge-queue-service';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp } from '../../support/app';
import { requireTestEnv } from '../../support/env';
import { startQueueHarness, type QueueHarness } from '../../support/queue-harness';
import { junit } from '../flaky/harness';

/** A run waits for the gate of every PR in its tree (prs/<n>, added by PR n). */
const GATED = 'for f in prs/*; do while [ ! -e "$GATE/go-$(basename "$f")" ]; do sleep 0.1; done; done';
/** What a browser sends with a form of this site (the origin check is on Host). */
const HOST = 'railyard.test';
const SAME_ORIGIN = { host: HOST, origin: `http://${HOST}` };

let h: QueueHarness;
let temporal: TemporalGateway;
let app: FastifyInstance;
let key: string;
let slug: string;
let cookie: string;

const release = (n: number) => fs.writeFileSync(path.join(h.gate, `go-${n}`), '');
const queueQs = () => new URLSearchParams({ ...h.key.repo, branch: 'main' }).toString();

/** Signs in through the sign-in form; the session cookie. */
async function signIn(): Promise<string> {
  const form = await app.inject({ method: 'GET', url: '/ui/sign-in', headers: { host: HOST } });
  const nonce = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const nonceCookie = form.cookies.find((c) => c.name === 'railyard-sign-in')!;
  const res = await app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    cookies: { [nonceCookie.name]: nonceCookie.value },
    payload: new URLSearchParams({ key, _csrf: nonce }).toString(),
  });
  expect([res.statusCode, res.headers.location]).toEqual([303, '/ui/queues']);
  return res.cookies.find((c) => c.name === 'railyard-session')!.value;
}

const page = async (url: string) => {
  const res = await app.inject({
    method: 'GET',
    url,
    headers: { host: HOST },
    cookies: { 'railyard-session': cookie },
  });
  expect([url, res.statusCode]).toEqual([url, 200]);
  return res.body;
};

interface Form {
  action: string;
  fields: Record<string, string>;
}

const unescape = (s: string) => s.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"');

/** The form of `html` whose action starts with `action`, with its hidden fields (and `button`'s value). */
function formOf(html: string, action: string, button?: { name: string; value: string }): Form {
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  const found = forms.find((m) => unescape(m[1]!).startsWith(action));
  if (!found) throw new Error(`no form posting to ${action} on the page`);
  const fields = Object.fromEntries(
    [...found[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1]!,
      unescape(m[2]!),
    ]),
  );
  if (button) {
    expect(found[2]).toContain(`name="${button.name}" value="${button.value}"`);
    fields[button.name] = button.value;
  }
  return { action: unescape(found[1]!), fields };
}

const post = (
  form: Form,
  opts: { headers?: Record<string, string>; cookie?: string | null } = {},
): Promise<LightMyRequestResponse> =>
  app.inject({
    method: 'POST',
    url: form.action,
    headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...opts.headers },
    cookies: opts.cookie === null ? {} : { 'railyard-session': opts.cookie ?? cookie },
    payload: new URLSearchParams(form.fields).toString(),
  });

const queuePage = () => page(`/ui/queue?${queueQs()}`);
const prForm = async (n: number, value: 'cancel' | 'restart') =>
  formOf(await queuePage(), `/ui/queue/pr?${queueQs()}&pr=${n}`, { name: 'action', value });

const queueState = async () => (await h.queue()).settings.state;
const prState = async (n: number) => (await h.queue()).enqueued.find((p) => p.pr === n)?.state;
const testing = (n: number) => h.waitFor(`PR #${n} testing`, async () => (await prState(n)) === 'testing');

beforeAll(async () => {
  h = await startQueueHarness({ command: GATED });
  await h.createQueue({ concurrency: 1 });
  temporal = createTemporalGateway({
    address: requireTestEnv('TEST_TEMPORAL_ADDRESS'),
    namespace: 'default',
    taskQueue: h.taskQueue,
    callTimeoutMs: 30_000,
  });
  slug = (
    await h.pool.query<{ slug: string }>('SELECT slug FROM organisations WHERE id = $1', [
      h.key.organisationId,
    ])
  ).rows[0]!.slug;
  key = (await createApiKeyStore(h.pool).create(slug, 'dashboard-writes')).key;
  ({ app } = await buildTestApp(h.pool, {
    mergeQueue: createMergeQueueService(createQueueClient(temporal)),
    ui: { sessions: createUiSessionStore(h.pool), pool: h.pool },
  }));
  cookie = await signIn();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await temporal?.close();
  await h?.close();
});

test('Pause holds the queue (a submitted PR is not tested); Resume starts it and it merges', async () => {
  const pause = formOf(await queuePage(), '/ui/queue/state?');
  expect(pause.fields).toMatchObject({ state: 'paused', _csrf: expect.any(String) });
  const paused = await post(pause);
  expect([paused.statusCode, paused.headers.location]).toEqual([303, `/ui/queue?${queueQs()}`]);
  expect(await queueState()).toBe('paused');
  expect(await queuePage()).toContain('data-testid="queue-state">paused<');

  h.openPr(1, { 'prs/1': '' });
  await h.submit(1);
  release(1);
  // A running queue with a free slot starts a PR's run in the step that admits it (it is `testing`
  // when submit returns); paused, it is admitted and waits.
  expect(await prState(1)).toBe('pending');
  expect(await queueState()).toBe('paused');
  expect(await queuePage()).toContain('No test run in progress.');

  const resume = formOf(await queuePage(), '/ui/queue/state?');
  expect(resume.fields.state).toBe('running');
  const resumedAt = Date.now();
  expect((await post(resume)).statusCode).toBe(303);
  expect(await queueState()).toBe('running');
  const merged = await h.settled(1);
  expect(merged.state).toBe('merged');
  expect(merged.timeline.find((t) => t.to === 'testing')?.at).toBeGreaterThanOrEqual(resumedAt);
  expect(h.mainLog()).toEqual(['PR 1 (#1)']);
}, 90_000);

test('Restart starts the PR’s test run again; it then merges', async () => {
  h.openPr(2, { 'prs/2': '' });
  await h.submit(2);
  await testing(2);
  const before = (await h.pr(2))!.timeline.filter((t) => t.to === 'testing').map((t) => t.testRunId);

  const res = await post(await prForm(2, 'restart'));
  expect([res.statusCode, res.headers.location]).toEqual([303, `/ui/queue?${queueQs()}`]);
  const restarted = await h.waitFor('a second test run of PR #2', async () => {
    const record = await h.pr(2);
    const runs = record?.timeline.filter((t) => t.to === 'testing').map((t) => t.testRunId) ?? [];
    return runs.length === 2 ? record! : undefined;
  });
  expect(restarted.timeline.map((t) => t.reason)).toContain('TESTS_RESTARTED_BY_API_REQUEST');
  const runs = restarted.timeline.filter((t) => t.to === 'testing').map((t) => t.testRunId);
  expect(runs[0]).toBe(before[0]);
  expect(runs[1]).not.toBe(runs[0]);

  release(2);
  expect((await h.settled(2)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
}, 90_000);

test('Cancel takes a testing PR out of the queue, said in its record; it never merges', async () => {
  h.openPr(3, { 'prs/3': '' });
  await h.submit(3);
  await testing(3);

  const res = await post(await prForm(3, 'cancel'));
  expect(res.statusCode).toBe(303);
  const cancelled = await h.settled(3);
  expect(cancelled).toMatchObject({ state: 'cancelled', reason: 'USER_REQUESTED' });
  const detail = cancelled.timeline.at(-1)?.detail;
  expect(detail).toMatchObject({ kind: 'actor', actor: expect.stringContaining(slug) });
  expect(await prState(3)).toBeUndefined();
  // Its gate opening later changes nothing: the run was cancelled with the PR.
  release(3);
  expect(h.mainLog()).toEqual(['PR 1 (#1)', 'PR 2 (#2)']);
  expect(await page(`/ui/pr?${queueQs()}&pr=3`)).toContain('cancelled');
}, 90_000);

test('a change without a session or from another origin is refused and changes nothing', async () => {
  h.openPr(4, { 'prs/4': '' });
  await h.submit(4);
  await testing(4);
  const pause = formOf(await queuePage(), '/ui/queue/state?');
  const cancel = await prForm(4, 'cancel');

  const noSession = await post(pause, { cookie: null });
  expect(noSession.statusCode).toBe(401);
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
    string,
    string
  >[]) {
    const refused = await post(pause, { headers });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('sent from another site');
    expect((await post(cancel, { headers })).statusCode).toBe(403);
  }
  const noToken = await post({ ...cancel, fields: { action: 'cancel' } });
  expect(noToken.statusCode).toBe(403);

  expect(await queueState()).toBe('running');
  expect(await prState(4)).toBe('testing');
  release(4);
  expect((await h.settled(4)).state).toBe('merged');
}, 90_000);

test('Link ticket stores the ticket on the test; the API and the ticket’s page show it', async () => {
  const api = (url: string, payload: object) =>
    app.inject({ method: 'POST', url: `/v1/${url}`, headers: { 'x-api-token': key }, payload });
  const upload = await api('flaky-tests/upload', {
    org_url_slug: slug,
    repo: h.key.repo,
    upload_id: 'ci-ticket',
    commit_sha: h.fx.tip('main'),
    branch: 'main',
    files: [{ name: 'junit.xml', content: junit({ 'applies the discount': 'FP' }) }],
  });
  expect(upload.statusCode).toBe(200);
  const { rows } = await h.pool.query<{ id: string }>(
    `SELECT t.id FROM test_cases t WHERE t.organisation_id = $1 AND t.name = 'applies the discount'`,
    [h.key.organisationId],
  );
  const id = rows[0]!.id;

  const linkForm = formOf(await page(`/ui/flaky/tests/${id}`), `/ui/flaky/tests/${id}/ticket`);
  const res = await post({ ...linkForm, fields: { ...linkForm.fields, ticket: 'RAIL-42' } });
  expect([res.statusCode, res.headers.location]).toEqual([303, `/ui/flaky/tests/${id}`]);

  const stored = await h.pool.query<{ ticket: string; ticket_linked_at: Date | null }>(
    'SELECT ticket, ticket_linked_at FROM test_cases WHERE id = $1',
    [id],
  );
  expect(stored.rows[0]).toMatchObject({ ticket: 'RAIL-42', ticket_linked_at: expect.any(Date) });
  const details = await api('flaky-tests/get-test-details', {
    org_url_slug: slug,
    repo: h.key.repo,
    test_id: id,
  });
  expect(details.json()).toMatchObject({
    test: { ticket: { html_url: expect.stringMatching(/\/ui\/flaky\/tickets\/RAIL-42$/) } },
  });
  expect(await page('/ui/flaky/tickets/RAIL-42')).toContain('applies the discount');
  expect(await page(`/ui/flaky/tests/${id}`)).toContain('RAIL-42');
}, 60_000);
