/**
 * fakehub's delivery faults and GitHub's App hook deliveries API: dropped deliveries are recorded as
 * failed (status code 0) and listed by `GET /app/hook/deliveries`, from where `POST …/attempts`
 * redelivers the same bytes under the same X-GitHub-Delivery guid; duplicates, reordering with
 * hold/release, delay, a failing and an unreachable target, no target; cursor pagination through the
 * Link header; App JWT only.
 */
import { signAppJwt, useFakeHub, type WebhookDelivery } from '../../support/fakehub';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

const hub = useFakeHub();
let receiver: WebhookReceiver;
let sha: string;
let installationId: number;
let repositoryId: number;
let contextCounter = 0;

interface ListedDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
}

async function app(method: string, path: string, auth = `Bearer ${signAppJwt(hub().app)}`) {
  const response = await fetch(`${hub().url}${path}`, {
    method,
    headers: { authorization: auth, accept: 'application/vnd.github+json' },
  });
  const text = await response.text();
  return {
    status: response.status,
    link: response.headers.get('link'),
    body: (text ? JSON.parse(text) : undefined) as unknown,
  };
}

async function list(query = ''): Promise<ListedDelivery[]> {
  const answer = await app('GET', `/app/hook/deliveries${query}`);
  expect(answer.status).toBe(200);
  return answer.body as ListedDelivery[];
}

/** One status event per call: a fresh context each time so deliveries are told apart. */
function status(): string {
  const context = `ctx-${++contextCounter}`;
  hub().setStatus('acme', 'widgets', sha, { context, state: 'success' });
  return context;
}

const lastDelivery = (): WebhookDelivery => hub().webhooks.deliveries.at(-1)!;

beforeAll(async () => {
  installationId = hub().createInstallation({ account: 'acme' }).id;
  const repository = await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  repositoryId = repository.id;
  sha = await hub().state.run(
    repository.bare,
    ['hash-object', '-w', '-t', 'commit', '--stdin'],
    'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nroot\n',
  );
  await hub().state.run(repository.bare, ['update-ref', 'refs/heads/main', sha]);
  receiver = await startWebhookReceiver();
  hub().webhooks.setTarget(receiver.url);
});

beforeEach(() => receiver.clear());

afterEach(async () => {
  hub().webhooks.drop(0);
  hub().webhooks.duplicate(0);
  hub().webhooks.delay(0);
  hub().webhooks.release();
  await hub().webhooks.idle();
  hub().webhooks.setTarget(receiver.url);
  receiver.answerWith(200);
});

afterAll(() => receiver.close());

describe('drop and redelivery', () => {
  it('records a dropped delivery as failed, lists it, and redelivers the same bytes under the same guid', async () => {
    hub().webhooks.drop(1);
    status();
    await hub().webhooks.idle();
    expect(receiver.received).toEqual([]);
    const dropped = lastDelivery();
    expect(dropped).toMatchObject({ event: 'status', outcome: 'dropped', statusCode: 0, redelivery: false });

    const [listed] = await list();
    expect(listed).toMatchObject({
      id: dropped.id,
      guid: dropped.guid,
      redelivery: false,
      status_code: 0,
      event: 'status',
      action: null,
      installation_id: installationId,
      repository_id: repositoryId,
    });
    expect(Date.parse(listed!.delivered_at)).not.toBeNaN();

    const attempt = await app('POST', `/app/hook/deliveries/${dropped.id}/attempts`);
    expect(attempt.status).toBe(202);
    await hub().webhooks.idle();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.guid).toBe(dropped.guid);
    expect(receiver.received[0]!.raw.toString('utf8')).toBe(dropped.body);
    expect(receiver.received[0]!.headers['x-hub-signature-256']).toBe(dropped.headers['x-hub-signature-256']);

    const [redelivered, original] = await list();
    expect(redelivered).toMatchObject({
      guid: dropped.guid,
      redelivery: true,
      status_code: 200,
      status: 'OK',
    });
    expect(redelivered!.id).toBeGreaterThan(dropped.id);
    expect(original!.id).toBe(dropped.id);
    expect((await app('POST', '/app/hook/deliveries/999999/attempts')).status).toBe(404);
  });

  it('drops what a predicate picks until drop(0)', async () => {
    hub().webhooks.drop((delivery) => delivery.event === 'status');
    status();
    hub().setCheckRun('acme', 'widgets', sha, { name: 'build', conclusion: 'success' });
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.event)).toEqual(['check_run', 'check_run']);
    hub().webhooks.drop(0);
    status();
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.event)).toEqual(['check_run', 'check_run', 'status']);
  });
});

describe('duplicates, order and delay', () => {
  it('sends the next delivery twice, same guid and bytes', async () => {
    hub().webhooks.duplicate(1);
    status();
    status();
    await hub().webhooks.idle();
    const [first, copy, next] = receiver.received;
    expect(receiver.received).toHaveLength(3);
    expect(copy!.guid).toBe(first!.guid);
    expect(copy!.raw.equals(first!.raw)).toBe(true);
    expect(next!.guid).not.toBe(first!.guid);
    expect(
      hub()
        .webhooks.deliveries.slice(-3)
        .map((d) => d.duplicate),
    ).toEqual([false, true, false]);
  });

  it('holds deliveries and releases them reversed; idle() does not wait for held ones', async () => {
    hub().webhooks.hold();
    const contexts = [status(), status(), status()];
    await hub().webhooks.idle();
    expect(receiver.received).toEqual([]);
    expect(
      hub()
        .webhooks.deliveries.slice(-3)
        .map((d) => d.outcome),
    ).toEqual(['held', 'held', 'held']);
    hub().webhooks.release({ reverse: true });
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.payload.context)).toEqual([...contexts].reverse());

    receiver.clear();
    hub().webhooks.hold();
    const inOrder = [status(), status()];
    await hub().webhooks.idle();
    hub().webhooks.release();
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.payload.context)).toEqual(inOrder);
  });

  it('delays deliveries and still sends them in order', async () => {
    hub().webhooks.delay(20);
    const contexts = [status(), status()];
    await hub().webhooks.idle();
    expect(receiver.received.map((r) => r.payload.context)).toEqual(contexts);
  });
});

describe('failing targets', () => {
  it('records a non-2xx answer as failed, filtered by status=failure', async () => {
    receiver.answerWith(503);
    status();
    await hub().webhooks.idle();
    expect(lastDelivery()).toMatchObject({
      outcome: 'failed',
      statusCode: 503,
      status: 'Invalid HTTP Response: 503',
    });
    const failures = await list('?status=failure');
    expect(failures[0]).toMatchObject({ id: lastDelivery().id, status_code: 503 });
    expect(failures.every((d) => d.status_code >= 400)).toBe(true);
    const successes = await list('?status=success');
    expect(successes.map((d) => d.id)).not.toContain(lastDelivery().id);
    expect(successes.every((d) => d.status_code >= 200 && d.status_code < 400)).toBe(true);
  });

  it('records an unreachable target as failed with status code 0; without a target nothing is sent or listed', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    hub().webhooks.setTarget(closed.url);
    status();
    await hub().webhooks.idle();
    expect(lastDelivery()).toMatchObject({
      outcome: 'failed',
      statusCode: 0,
      status: 'failed to connect to host',
    });

    hub().webhooks.setTarget(null);
    status();
    await hub().webhooks.idle();
    expect(lastDelivery()).toMatchObject({ outcome: 'unsent', statusCode: null });
    expect((await list()).map((d) => d.id)).not.toContain(lastDelivery().id);
    expect(receiver.received).toEqual([]);
  });
});

describe('GET /app/hook/deliveries', () => {
  it('pages newest first through the Link header without gaps or repeats', async () => {
    for (let i = 0; i < 5; i++) status();
    await hub().webhooks.idle();
    const all = await list('?per_page=100');
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((a, b) => b - a));

    const seen: number[] = [];
    let next: string | null = `${hub().url}/app/hook/deliveries?per_page=2`;
    while (next) {
      const page = await app('GET', next.slice(hub().url.length));
      const items = page.body as ListedDelivery[];
      expect(items.length).toBeLessThanOrEqual(2);
      seen.push(...items.map((d) => d.id));
      next = page.link ? /<([^>]+)>; rel="next"/.exec(page.link)![1]! : null;
    }
    expect(seen).toEqual(all.map((d) => d.id));
    expect((await app('GET', '/app/hook/deliveries?cursor=nonsense')).status).toBe(422);
  });

  it('needs the App JWT: an installation token is refused (and recorded as the wrong credential)', async () => {
    const token = hub().installationToken(installationId);
    expect((await app('GET', '/app/hook/deliveries', `token ${token}`)).status).toBe(401);
    expect(hub().takeViolations()).toEqual([
      "apps/list-webhook-deliveries needs the App's JWT; the request carried an installation token",
    ]);
  });
});
