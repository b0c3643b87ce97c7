/**
 * fakehub's deliveries against railyard's own receiver route (api/routes/github/webhooks.ts, mounted
 * alone with a recording WebhookReceiver, no database): the route verifies the signature on the raw
 * bytes and takes the event and delivery id from the headers, so a fakehub delivery is accepted (200)
 * under the App's secret, refused (401, recorded by fakehub as a failed delivery) under another, and a
 * redelivery arrives again under the same delivery id.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ReceivedDelivery } from '../../../github/inbound/webhook-receiver';
import { gitHubWebhookRoutes } from '../../../api/routes/github/webhooks';
import { signAppJwt, useFakeHub } from '../../support/fakehub';

const hub = useFakeHub();
const stored: ReceivedDelivery[] = [];
let railyard: FastifyInstance;
let sha: string;

async function mount(secret: string): Promise<string> {
  railyard = Fastify({ logger: false });
  railyard.setValidatorCompiler(validatorCompiler);
  railyard.setSerializerCompiler(serializerCompiler);
  await railyard.register(
    gitHubWebhookRoutes({
      secret,
      receiver: {
        receive: (delivery) => {
          const seen = stored.some((d) => d.deliveryId === delivery.deliveryId);
          stored.push(delivery);
          return Promise.resolve(seen ? 'duplicate' : 'stored');
        },
        idle: () => Promise.resolve(),
      },
    }),
    { prefix: '/v1' },
  );
  return `${await railyard.listen({ host: '127.0.0.1', port: 0 })}/v1/github/webhooks`;
}

beforeAll(async () => {
  const installationId = hub().createInstallation({ account: 'acme' }).id;
  const repository = await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  sha = await hub().state.run(
    repository.bare,
    ['hash-object', '-w', '-t', 'commit', '--stdin'],
    'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nroot\n',
  );
  await hub().state.run(repository.bare, ['update-ref', 'refs/heads/main', sha]);
});

afterEach(async () => {
  await hub().webhooks.idle();
  await railyard.close();
});

it("is accepted by railyard's receiver route under the App's secret, redelivery included", async () => {
  hub().webhooks.setTarget(await mount(hub().app.webhookSecret));
  hub().setStatus('acme', 'widgets', sha, { context: 'ci', state: 'success' });
  await hub().webhooks.idle();
  const delivery = hub().webhooks.deliveries.at(-1)!;
  expect(delivery).toMatchObject({ event: 'status', outcome: 'delivered', statusCode: 200 });
  expect(stored.at(-1)).toMatchObject({ deliveryId: delivery.guid, event: 'status', body: delivery.body });

  const response = await fetch(`${hub().url}/app/hook/deliveries/${delivery.id}/attempts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${signAppJwt(hub().app)}` },
  });
  expect(response.status).toBe(202);
  await hub().webhooks.idle();
  expect(stored.filter((d) => d.deliveryId === delivery.guid)).toHaveLength(2);
  expect(hub().webhooks.deliveries.at(-1)).toMatchObject({ redelivery: true, statusCode: 200 });
});

it('is refused (401) under another secret, and fakehub records the delivery as failed', async () => {
  hub().webhooks.setTarget(await mount('not-the-app-secret'));
  const before = stored.length;
  hub().setStatus('acme', 'widgets', sha, { context: 'ci', state: 'failure' });
  await hub().webhooks.idle();
  expect(hub().webhooks.deliveries.at(-1)).toMatchObject({
    outcome: 'failed',
    statusCode: 401,
    status: 'Invalid HTTP Response: 401',
  });
  expect(stored).toHaveLength(before);
});
