/**
 * The contract check: matches a request to its operation in the committed subset of GitHub's OpenAPI
 * description (rest-subset.json) and validates the request (path, query, body) and the response
 * (status, body) with Ajv, returning one plain sentence per violation.
 *
 * Invariants:
 * - The description is OpenAPI 3.0: `nullable: true` is rewritten to `anyOf: [null, schema]`, schema
 *   references point into one Ajv schema holding every component, formats are checked (ajv-formats,
 *   plus GitHub's `int64`/`int32`).
 * - A request matching no operation of the subset is itself a violation (the fake serves no
 *   undescribed route), and so are query parameters the operation does not declare.
 * - GitHub answers some statuses on every operation though the description lists them only on some:
 *   304 to a conditional GET (empty body), and 400/401/403/404/422/429/500/503 with a `basic-error`
 *   body. Any other undocumented status is a violation.
 * - Validators are compiled lazily, once per schema, and cached for the process; under `npm test` the
 *   run's other test files reuse them as code (compile-cache.ts).
 */
import Ajv, { _, type ValidateFunction } from 'ajv';
import subset from './rest-subset.json';
import { addContractFormats } from './ajv-formats';
import { compileCached } from './compile-cache';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ROOT_ID = 'https://fakehub.invalid/rest-subset.json';
const GENERIC_ERROR_STATUSES = new Set([400, 401, 403, 404, 422, 429, 500, 503]);
const NULLABLE = 'openapi nullable';

export interface MatchedOperation {
  operationId: string;
  method: string;
  template: string;
  pathParams: Record<string, string>;
}

interface CompiledOperation {
  operationId: string;
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  literalLength: number;
  spec: JsonObject;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAPI 3.0 schema → JSON Schema draft-07 that Ajv validates the way GitHub means it. */
export function toJsonSchema(value: Json): Json {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'nullable' || key === 'discriminator' || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof child === 'string') {
      out.$ref = child.replace(/^#\/components\/schemas\//, `${ROOT_ID}#/definitions/`);
      continue;
    }
    if (key === 'properties' && isObject(child)) {
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(child)) props[name] = toJsonSchema(prop);
      out.properties = props;
      continue;
    }
    out[key] = toJsonSchema(child);
  }
  return value.nullable === true
    ? { $comment: NULLABLE, anyOf: [{ $comment: NULLABLE, type: 'null' }, out] }
    : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface ContractValidator {
  match(method: string, pathname: string): MatchedOperation | null;
  /** Violations of the request; `query` as parsed from the URL, `body` parsed JSON or undefined. */
  validateRequest(
    op: MatchedOperation,
    query: URLSearchParams,
    body: unknown,
    hasBody: boolean,
  ): { violations: string[]; pathParams: Record<string, unknown> };
  validateResponse(op: MatchedOperation, status: number, body: string): string[];
}

export function createContractValidator(): ContractValidator {
  const doc = subset as unknown as JsonObject;
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateFormats: true,
    verbose: true,
    // Compiled validators can be written as code (compile-cache.ts), naming formats by their module.
    code: { source: true, formats: _`require(${require.resolve('./ajv-formats')}).formats` },
  });
  addContractFormats(ajv);
  const schemas = (doc.components as { schemas: JsonObject }).schemas;
  const definitions: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) definitions[name] = toJsonSchema(schema);
  ajv.addSchema({ $id: ROOT_ID, definitions });
  const cache = new Map<Json, ValidateFunction>();
  const validatorOf = (schema: Json): ValidateFunction => {
    let fn = cache.get(schema);
    if (!fn) {
      fn = compileCached(ajv, toJsonSchema(schema) as object, `rest ${ROOT_ID}`);
      cache.set(schema, fn);
    }
    return fn;
  };
  const describe = (fn: ValidateFunction, where: string): string[] =>
    (fn.errors ?? [])
      // The null branch of a rewritten `nullable` only adds noise next to the real branch's error.
      .filter((e) => (e.parentSchema as { $comment?: string } | undefined)?.$comment !== NULLABLE)
      .slice(0, 10)
      .map((e) => `${where}${e.instancePath || ''} ${e.message ?? 'is invalid'}${paramsText(e.params)}`);

  const operations: CompiledOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, spec] of Object.entries(item as JsonObject)) {
      const params = ((spec as JsonObject).parameters ?? []) as JsonObject[];
      const names: string[] = [];
      let literalLength = 0;
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{(.+)\}$/.exec(part)?.[1];
          if (!name) {
            literalLength += part.length;
            return escapeRegExp(part);
          }
          names.push(name);
          const multi = params.some((p) => p.name === name && p['x-multi-segment'] === true);
          return multi ? '(.+)' : '([^/]+)';
        })
        .join('');
      operations.push({
        operationId: text((spec as JsonObject).operationId),
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        names,
        literalLength,
        spec: spec as JsonObject,
      });
    }
  }
  operations.sort((a, b) => b.literalLength - a.literalLength);
  const byId = new Map(operations.map((op) => [`${op.method} ${op.template}`, op]));
  const compiled = (op: MatchedOperation): CompiledOperation => byId.get(`${op.method} ${op.template}`)!;

  return {
    match(method, pathname) {
      for (const op of operations) {
        if (op.method !== method.toUpperCase()) continue;
        const found = op.pattern.exec(pathname);
        if (!found) continue;
        const pathParams: Record<string, string> = {};
        op.names.forEach((name, i) => (pathParams[name] = decodeURIComponent(found[i + 1]!)));
        return { operationId: op.operationId, method: op.method, template: op.template, pathParams };
      }
      return null;
    },

    validateRequest(op, query, body, hasBody) {
      const spec = compiled(op).spec;
      const violations: string[] = [];
      const pathParams: Record<string, unknown> = {};
      const params = (spec.parameters ?? []) as JsonObject[];
      for (const param of params) {
        const name = text(param.name);
        const where = param.in === 'path' ? 'path' : 'query';
        if (param.in !== 'path' && param.in !== 'query') continue;
        const raw = where === 'path' ? op.pathParams[name] : (query.get(name) ?? undefined);
        if (raw === undefined) {
          if (param.required === true) violations.push(`${where} parameter ${name} is required`);
          continue;
        }
        const value = coerce(raw, param.schema);
        const fn = validatorOf(param.schema ?? {});
        if (!fn(value)) violations.push(...describe(fn, `${where} parameter ${name}`));
        if (where === 'path') pathParams[name] = value;
      }
      const declared = new Set(params.filter((p) => p.in === 'query').map((p) => text(p.name)));
      for (const name of new Set(query.keys()))
        if (!declared.has(name))
          violations.push(`query parameter ${name} is not declared by ${op.operationId}`);
      const requestBody = spec.requestBody as JsonObject | undefined;
      const bodySchema = (requestBody?.content as JsonObject | undefined)?.['application/json'] as
        JsonObject | undefined;
      if (!requestBody) {
        if (hasBody) violations.push(`${op.operationId} takes no request body`);
      } else if (!hasBody) {
        if (requestBody.required === true) violations.push(`the request body is required`);
      } else if (bodySchema?.schema) {
        const fn = validatorOf(bodySchema.schema);
        if (!fn(body)) violations.push(...describe(fn, 'request body'));
      }
      return { violations: violations.map((v) => `${op.operationId}: ${v}`), pathParams };
    },

    validateResponse(op, status, text) {
      const spec = compiled(op).spec;
      const responses = spec.responses as JsonObject;
      let response = (responses[String(status)] ?? responses.default) as JsonObject | undefined;
      if (!response) {
        if (status === 304 && op.method === 'GET') response = {};
        else if (GENERIC_ERROR_STATUSES.has(status))
          response = {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/basic-error' } } },
          };
        else return [`${op.operationId}: status ${status} is not a documented response`];
      }
      const media = (response.content as JsonObject | undefined)?.['application/json'] as
        JsonObject | undefined;
      if (!media?.schema) {
        return text.length === 0 ? [] : [`${op.operationId}: a ${status} response has no body, got one`];
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return [`${op.operationId}: the ${status} response body is not JSON`];
      }
      const fn = validatorOf(media.schema);
      return fn(body) ? [] : describe(fn, `${op.operationId}: ${status} response body`);
    },
  };
}

function text(value: Json | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function coerce(raw: string, schema: Json | undefined): unknown {
  const type = isObject(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function paramsText(params: Record<string, unknown>): string {
  const entries = Object.entries(params).filter(([, v]) => typeof v === 'string' || typeof v === 'number');
  return entries.length > 0 ? ` (${entries.map(([k, v]) => `${k}: ${String(v)}`).join(', ')})` : '';
}
