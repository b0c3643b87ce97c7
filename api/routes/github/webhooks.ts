/**
 * `POST /v1/github/webhooks`: GitHub App webhook deliveries (docs/github.md "Webhooks"). Public (GitHub
 * sends no API key); registered only when a GitHub App is configured.
 *
 * Rules:
 * - The raw body is kept (this plugin's own content-type parser) and X-Hub-Signature-256 is checked
 *   against it first: a missing or wrong signature is a 401 and nothing is stored.
 * - Then X-GitHub-Event and X-GitHub-Delivery must be present and the body must be JSON (400).
 * - The delivery is stored once by its delivery id and answered at once (200, also for a redelivered
 *   id); acting on it happens after the answer (github/inbound/webhook-receiver.ts).
 * - The body is bounded by the API's body limit (413 past it). The secret is never logged or answered.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isValidSignature } from '../../../github/inbound/webhook-signature';
import type { WebhookReceiver } from '../../../github/inbound/webhook-receiver';
import { badRequest, unauthorized } from '../../errors';

export interface GitHubWebhookApiDeps {
  /** RAILYARD_GITHUB_WEBHOOK_SECRET. */
  secret: string;
  receiver: WebhookReceiver;
}

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const EVENT = /^[a-z_]{1,100}$/;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function gitHubWebhookRoutes(deps: GitHubWebhookApiDeps) {
  return (app: FastifyInstance): void => {
    // Scoped to this plugin: every body arrives here as the exact bytes GitHub signed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.withTypeProvider<ZodTypeProvider>().post(
      '/github/webhooks',
      {
        config: { public: true },
        schema: {
          tags: ['github'],
          summary: 'GitHub App webhook deliveries (signed with the webhook secret; no API key).',
          response: { 200: z.object({ delivery: z.string(), stored: z.boolean() }) },
        },
      },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!isValidSignature(deps.secret, raw, header(request.headers['x-hub-signature-256'])))
          throw unauthorized(
            "The X-Hub-Signature-256 header is missing or does not match the body; check the GitHub App's webhook secret.",
          );
        const event = header(request.headers['x-github-event']);
        if (event === undefined || !EVENT.test(event))
          throw badRequest('The X-GitHub-Event header is missing or is not an event name.');
        const deliveryId = header(request.headers['x-github-delivery']);
        if (deliveryId === undefined || !DELIVERY_ID.test(deliveryId))
          throw badRequest('The X-GitHub-Delivery header is missing or is not a delivery id.');
        const body = raw.toString('utf8');
        let payload: unknown;
        try {
          payload = JSON.parse(body);
        } catch {
          throw badRequest(
            'The body is not JSON; set the GitHub App webhook content type to application/json.',
          );
        }
        if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
          throw badRequest('The body is not a JSON object.');
        const result = await deps.receiver.receive({ deliveryId, event, body, payload });
        request.log.info({ delivery: deliveryId, event, result }, 'github delivery');
        return { delivery: deliveryId, stored: result === 'stored' };
      },
    );
  };
}
