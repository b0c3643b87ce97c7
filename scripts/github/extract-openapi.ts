/**
 * Extracts the GitHub REST operations fakehub serves from GitHub's published OpenAPI description
 * (`@octokit/openapi`, a devDependency pinned to OPENAPI_SOURCE.version; ~390 MB unpacked, so the
 * fake keeps only a subset) into the committed `test/support/fakehub/contract/rest-subset.json`.
 *
 *   npx tsx scripts/github/extract-openapi.ts
 *   (or, for another version unpacked elsewhere: `--package <its folder>`)
 *
 * Rules: only the operations of SERVED_OPERATIONS are kept, each with its parameters, request body,
 * responses and headers inlined, and every schema they reference (transitively) copied under
 * `components.schemas` unchanged, so the subset is itself a valid OpenAPI 3.0 document that validates
 * exactly as the full description does. Examples are dropped (documentation, never validated). The
 * output is deterministic: the same package gives byte-identical JSON (test/unit/fakehub checks the
 * committed file against a fresh extraction in every `npm test`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  OPENAPI_SOURCE,
  SERVED_OPERATIONS,
  type ServedOperation,
} from '../../test/support/fakehub/contract/operations';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const SUBSET_PATH = 'test/support/fakehub/contract/rest-subset.json';

/** Keys of OpenAPI objects that only document, and are removed wherever they appear outside a schema. */
const DROPPED_KEYS = new Set(['examples', 'example']);

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function pointer(spec: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, not ${ref}`);
  let node: Json = spec;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolvable reference ${ref}`);
    node = node[key]!;
  }
  return node;
}

/**
 * Copies an operation-level value, inlining references to non-schema components and recording the
 * schema references it meets (those stay references, as in the source).
 */
export function inline(spec: JsonObject, value: Json, schemas: Set<string>, inSchema: boolean): Json {
  if (Array.isArray(value)) return value.map((item) => inline(spec, item, schemas, inSchema));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string') {
    const schema = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (schema) {
      schemas.add(schema[1]!);
      return { $ref: ref };
    }
    return inline(spec, pointer(spec, ref), schemas, inSchema);
  }
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (!inSchema && DROPPED_KEYS.has(key)) continue;
    if (inSchema && key === 'example') continue;
    const childInSchema = inSchema || key === 'schema';
    // Inside a schema, `properties` maps names to schemas: a property may be called "example".
    if (inSchema && key === 'properties' && isObject(child)) {
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(child)) props[name] = inline(spec, prop, schemas, true);
      out[key] = props;
      continue;
    }
    out[key] = inline(spec, child, schemas, childInSchema);
  }
  return out;
}

function operationOf(spec: JsonObject, op: ServedOperation): JsonObject {
  const paths = spec.paths;
  const item = isObject(paths) ? paths[op.path] : undefined;
  const operation = isObject(item) ? item[op.method] : undefined;
  if (!isObject(operation))
    throw new Error(`${op.method.toUpperCase()} ${op.path} is not in ${OPENAPI_SOURCE.package}`);
  return operation;
}

/**
 * Copies the named schemas of `spec` and every schema they reference, until closed under references,
 * sorted by name (schemas reference other schemas; the copy must resolve on its own).
 */
export function copySchemas(spec: JsonObject, names: Iterable<string>): JsonObject {
  const copied: JsonObject = {};
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in copied) continue;
    const found = new Set<string>();
    copied[name] = inline(
      spec,
      pointer(spec, `#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`),
      found,
      true,
    );
    for (const next of found) if (!(next in copied)) pending.push(next);
  }
  const sorted: JsonObject = {};
  for (const name of Object.keys(copied).sort()) sorted[name] = copied[name]!;
  return sorted;
}

/** The subset document for `operations`, from the full description `spec`. */
export function extractSubset(
  spec: JsonObject,
  operations: readonly ServedOperation[] = SERVED_OPERATIONS,
): JsonObject {
  const schemas = new Set<string>();
  const paths: JsonObject = {};
  for (const op of [...operations].sort((a, b) =>
    `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`),
  )) {
    const item = (paths[op.path] ??= {}) as JsonObject;
    item[op.method] = inline(spec, operationOf(spec, op), schemas, false);
  }
  const sortedSchemas = copySchemas(spec, schemas);
  const info = isObject(spec.info) ? spec.info : {};
  return {
    openapi: spec.openapi ?? '3.0.3',
    info: {
      title: `${typeof info.title === 'string' ? info.title : 'GitHub REST API'} (fakehub subset)`,
      version: info.version ?? '',
      description: `Extracted by scripts/github/extract-openapi.ts from ${OPENAPI_SOURCE.package}@${OPENAPI_SOURCE.version} ${OPENAPI_SOURCE.file}. Do not edit: regenerate.`,
    },
    paths,
    components: { schemas: sortedSchemas },
  };
}

/** Where the package is: `--package <dir>`, else node_modules. */
export function packageDir(argv: readonly string[], cwd: string): string {
  const at = argv.indexOf('--package');
  if (at >= 0) {
    const dir = argv[at + 1];
    if (!dir) throw new Error('--package needs the folder of the unpacked @octokit/openapi package');
    return resolve(cwd, dir);
  }
  return join(cwd, 'node_modules', ...OPENAPI_SOURCE.package.split('/'));
}

/** Reads the package's description, refusing any version but the pinned one. */
export function readDescription(dir: string): JsonObject {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
  if (pkg.version !== OPENAPI_SOURCE.version)
    throw new Error(
      `${OPENAPI_SOURCE.package} in ${dir} is version ${pkg.version ?? '(none)'}; the subset is pinned to ${OPENAPI_SOURCE.version} (change OPENAPI_SOURCE to move)`,
    );
  return JSON.parse(readFileSync(join(dir, OPENAPI_SOURCE.file), 'utf8')) as JsonObject;
}

/** Writes `value` as JSON formatted by the project's prettier settings (so `format:check` passes). */
export async function writeFormattedJson(path: string, value: Json): Promise<void> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(JSON.stringify(value), { ...options, parser: 'json' }));
}

async function main(): Promise<void> {
  const cwd = process.cwd();
  const subset = extractSubset(readDescription(packageDir(process.argv.slice(2), cwd)));
  await writeFormattedJson(join(cwd, SUBSET_PATH), subset);
  const operations = Object.values(subset.paths as JsonObject).reduce<number>(
    (n, item) => n + Object.keys(item as JsonObject).length,
    0,
  );
  const schemaCount = Object.keys((subset.components as { schemas: JsonObject }).schemas).length;
  process.stdout.write(`${SUBSET_PATH}: ${operations} operations, ${schemaCount} schemas\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
