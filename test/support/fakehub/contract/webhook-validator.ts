/**
 * The webhook contract check: validates each delivery fakehub makes (headers and body) against the
 * committed subset of GitHub's webhook description (webhooks-subset.json), returning one plain
 * sentence per violation.
 *
 * Invariants:
 * - The description is OpenAPI 3.1, so its schemas are JSON Schema 2020-12 and are used as they are
 *   (Ajv 2020 + ajv-formats, plus GitHub's `int64`); only `$ref`s are pointed into one Ajv schema that
 *   holds every component.
 * - A delivery whose event/action has no entry in the subset is itself a violation: the fake sends
 *   nothing it cannot check.
 * - Every header the description marks required must be present (names compared case-insensitively).
 * - Validators are compiled lazily, once per event key; under `npm test` the run's other test files
 *   reuse them as code (compile-cache.ts).
 */
import Ajv2020, { _, type ValidateFunction } from 'ajv/dist/2020';
import { addContractFormats } from './ajv-formats';
import { compileCached } from './compile-cache';
import subset from './webhooks-subset.json';
import { webhookKey } from './webhook-events';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ROOT_ID = 'https://fakehub.invalid/webhooks-subset.json';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(pointRefs);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value))
    out[key] =
      key === '$ref' && typeof child === 'string'
        ? child.replace(/^#\/components\/schemas\//, `${ROOT_ID}#/$defs/`)
        : pointRefs(child);
  return out;
}

export interface WebhookValidator {
  /** Violations of one delivery; `headers` with lower-case names, `body` the exact JSON sent. */
  validate(event: string, action: string | null, headers: Record<string, string>, body: string): string[];
}

export function createWebhookValidator(): WebhookValidator {
  const doc = subset as unknown as JsonObject;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: true,
    code: { source: true, formats: _`require(${require.resolve('./ajv-formats')}).formats` },
  });
  addContractFormats(ajv);
  const schemas = (doc.components as { schemas: JsonObject }).schemas;
  const defs: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) defs[name] = pointRefs(schema);
  ajv.addSchema({ $id: ROOT_ID, $defs: defs });
  const webhooks = doc.webhooks as JsonObject;
  const cache = new Map<string, ValidateFunction>();

  return {
    validate(event, action, headers, body) {
      const key = webhookKey(event, action);
      const where = `webhook ${event}${action === null ? '' : `.${action}`}`;
      const post = (webhooks[key] as JsonObject | undefined)?.post as JsonObject | undefined;
      if (!post) return [`${where} (${key}) is not in the webhook contract subset`];
      const violations: string[] = [];
      for (const param of (post.parameters ?? []) as JsonObject[])
        if (param.in === 'header' && param.required === true && typeof param.name === 'string')
          if (!headers[param.name.toLowerCase()])
            violations.push(`${where}: header ${param.name} is required`);
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        return [...violations, `${where}: the body is not JSON`];
      }
      let fn = cache.get(key);
      if (!fn) {
        const media = ((post.requestBody as JsonObject).content as JsonObject)[
          'application/json'
        ] as JsonObject;
        fn = compileCached(ajv, pointRefs(media.schema!) as object, `webhooks ${ROOT_ID}`);
        cache.set(key, fn);
      }
      if (!fn(payload))
        violations.push(
          ...(fn.errors ?? [])
            .slice(0, 25)
            .map(
              (e) =>
                `${where}: body${e.instancePath || ''} ${e.message ?? 'is invalid'}${paramsText(e.params)}`,
            ),
        );
      return violations;
    },
  };
}

function paramsText(params: Record<string, unknown>): string {
  const entries = Object.entries(params).filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  return entries.length > 0 ? ` (${entries.map(([k, v]) => `${k}: ${String(v)}`).join(', ')})` : '';
}
