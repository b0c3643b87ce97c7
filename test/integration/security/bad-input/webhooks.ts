/**
 * Bad input to the webhook administration endpoints (/v1/webhooks/*). Their bodies and queries are
 * railyard's own (Trunk manages webhooks in Svix's portal), so unknown fields are refused rather than
 * ignored: a client cannot believe it set a field (such as its own `secret`) that was dropped.
 * Page sizes, cursors and malformed ids of these endpoints are in flaky-tests.ts's sections of the
 * same names.
 */
import { WEBHOOK_EVENT_TYPES } from '../../../../webhooks';
import type { BadInputContext, BadInputRow } from './rows';

const SUBSCRIPTIONS = '/v1/webhooks/subscriptions';
const URL = 'https://hooks.example.com/railyard';
const one = (ctx: BadInputContext) => `${SUBSCRIPTIONS}/${ctx.webhooks.subscriptionId}`;
const EVENT_TYPES = `must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}.`;

// prettier-ignore
export const wrongTypes: BadInputRow[] = [
  { name: 'url is a number', route: SUBSCRIPTIONS, body: { url: 5 }, status: 400, message: "Field 'url' must be a string." },
  { name: 'url is not http(s)', route: SUBSCRIPTIONS, body: { url: 'file:///etc/passwd' }, status: 400, message: "Field 'url' must be an http or https URL." },
  { name: 'url is not a URL', route: SUBSCRIPTIONS, body: { url: 'hooks.example.com/x' }, status: 400, message: "Field 'url' is not a valid URL." },
  { name: 'eventTypes is a string', route: SUBSCRIPTIONS, body: { url: URL, eventTypes: 'pull_request.merged' }, status: 400, message: "Field 'eventTypes' must be an array." },
  { name: 'eventTypes holds an unknown type', route: SUBSCRIPTIONS, body: { url: URL, eventTypes: ['pull_request.tests_passed'] }, status: 400, message: `Field 'eventTypes[0]' ${EVENT_TYPES}` },
  { name: 'enabled is a string', route: SUBSCRIPTIONS, body: { url: URL, enabled: 'yes' }, status: 400, message: "Field 'enabled' must be a boolean." },
  { name: 'description is a number', route: SUBSCRIPTIONS, body: { url: URL, description: 5 }, status: 400, message: "Field 'description' must be a string." },
  { name: 'update: enabled is a string', method: 'PATCH', route: '', routeOf: one, body: { enabled: 'no' }, status: 400, message: "Field 'enabled' must be a boolean." },
  { name: 'update: body is an array', method: 'PATCH', route: '', routeOf: one, body: [], status: 400, message: 'The request body must be a JSON object.' },
  { name: 'deliveries: limit is a word', method: 'GET', route: '', routeOf: (ctx) => `${one(ctx)}/deliveries?limit=ten`, status: 400, message: "Field 'limit' must be a number." },
  { name: 'deliveries: limit is a fraction', method: 'GET', route: '', routeOf: (ctx) => `${one(ctx)}/deliveries?limit=1.5`, status: 400, message: "Field 'limit' must be an integer." },
  { name: 'deliveries: status is not a delivery status', method: 'GET', route: '', routeOf: (ctx) => `${one(ctx)}/deliveries?status=done`, status: 400, message: "Field 'status' must be one of: pending, succeeded, failed, cancelled." },
];

// prettier-ignore
export const missingFields: BadInputRow[] = [
  { name: 'create without url', route: SUBSCRIPTIONS, body: { eventTypes: [] }, status: 400, message: "Field 'url' is required." },
  { name: 'create with an empty body', route: SUBSCRIPTIONS, body: '', status: 400, message: 'The request body is empty; send a JSON object.' },
  { name: 'create with a blank url', route: SUBSCRIPTIONS, body: { url: '  ' }, status: 400, message: "Field 'url' must be at least 1 characters long." },
];

// prettier-ignore
export const unknownFields: BadInputRow[] = [
  { name: 'create with a secret of its own', route: SUBSCRIPTIONS, body: { url: URL, secret: 'whsec_mine' }, status: 400, message: "The request has unknown field 'secret'." },
  { name: 'update with an id', method: 'PATCH', route: '', routeOf: one, body: { id: '00000000-0000-0000-0000-000000000000' }, status: 400, message: "The request has unknown field 'id'." },
  { name: 'update with the secret', method: 'PATCH', route: '', routeOf: one, body: { secret: 'whsec_mine' }, status: 400, message: "The request has unknown field 'secret'." },
  { name: 'deliveries with an unknown query parameter', method: 'GET', route: '', routeOf: (ctx) => `${one(ctx)}/deliveries?since=yesterday`, status: 400, message: "The request has unknown field 'since'." },
];

// prettier-ignore
export const controlCharacters: BadInputRow[] = [
  { name: 'url with a NUL', route: SUBSCRIPTIONS, body: { url: `${URL}\u0000` }, status: 400, message: "Field 'url' must not contain control characters." },
  { name: 'url with a newline', route: SUBSCRIPTIONS, body: { url: `${URL}\nX-Injected: 1` }, status: 400, message: "Field 'url' must not contain control characters." },
  { name: 'update: url with a NUL', method: 'PATCH', route: '', routeOf: one, body: { url: `${URL}\u0000` }, status: 400, message: "Field 'url' must not contain control characters." },
  { name: 'update: description with a NUL', method: 'PATCH', route: '', routeOf: one, body: { description: 'a\u0000b' }, status: 400, message: "Field 'description' must not contain NUL characters." },
];

export const WEBHOOK_SECTIONS: [string, BadInputRow[]][] = [
  ['webhooks: wrong types', wrongTypes],
  ['webhooks: missing fields', missingFields],
  ['webhooks: extra unknown fields', unknownFields],
  ['webhooks: control characters', controlCharacters],
];
