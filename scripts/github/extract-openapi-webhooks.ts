/**
 * Extracts the webhook events fakehub delivers from GitHub's published webhook description
 * (`@octokit/openapi-webhooks`, a devDependency pinned to WEBHOOKS_SOURCE.version, ~36 MB unpacked)
 * into the committed `test/support/fakehub/contract/webhooks-subset.json`.
 *
 *   npx tsx scripts/github/extract-openapi-webhooks.ts
 *   (or, for another version unpacked elsewhere: `--package <its folder>`)
 *
 * Rules: the same as scripts/github/extract-openapi.ts — only the events of SERVED_WEBHOOKS are kept
 * (their `webhooks.<key>.post` operation: header parameters and the request body schema), every schema
 * they reference is copied unchanged under `components.schemas`, examples are dropped, and the output
 * is deterministic (test/unit/fakehub checks it against a fresh extraction in every `npm test`).
 * The source is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: nothing to rewrite.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SERVED_WEBHOOKS, WEBHOOKS_SOURCE } from '../../test/support/fakehub/contract/webhook-events';
import { copySchemas, inline, isObject, writeFormattedJson, type JsonObject } from './extract-openapi';

export const WEBHOOKS_SUBSET_PATH = 'test/support/fakehub/contract/webhooks-subset.json';

/** The subset document for `keys`, from the full webhook description `spec`. */
export function extractWebhooksSubset(
  spec: JsonObject,
  keys: readonly string[] = SERVED_WEBHOOKS,
): JsonObject {
  const schemas = new Set<string>();
  const webhooks: JsonObject = {};
  const all = isObject(spec.webhooks) ? spec.webhooks : {};
  for (const key of [...keys].sort()) {
    const item = all[key];
    const post = isObject(item) ? item.post : undefined;
    if (!isObject(post)) throw new Error(`webhook ${key} is not in ${WEBHOOKS_SOURCE.package}`);
    webhooks[key] = { post: inline(spec, post, schemas, false) };
  }
  const info = isObject(spec.info) ? spec.info : {};
  return {
    openapi: spec.openapi ?? '3.1.0',
    info: {
      title: `${typeof info.title === 'string' ? info.title : 'GitHub webhooks'} (fakehub subset)`,
      version: info.version ?? '',
      description: `Extracted by scripts/github/extract-openapi-webhooks.ts from ${WEBHOOKS_SOURCE.package}@${WEBHOOKS_SOURCE.version} ${WEBHOOKS_SOURCE.file}. Do not edit: regenerate.`,
    },
    webhooks,
    components: { schemas: copySchemas(spec, schemas) },
  };
}

/** Where the package is: `--package <dir>`, else node_modules. */
export function webhooksPackageDir(argv: readonly string[], cwd: string): string {
  const at = argv.indexOf('--package');
  if (at >= 0) {
    const dir = argv[at + 1];
    if (!dir) throw new Error('--package needs the folder of the unpacked @octokit/openapi-webhooks package');
    return resolve(cwd, dir);
  }
  return join(cwd, 'node_modules', ...WEBHOOKS_SOURCE.package.split('/'));
}

/** Reads the package's description, refusing any version but the pinned one. */
export function readWebhooksDescription(dir: string): JsonObject {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
  if (pkg.version !== WEBHOOKS_SOURCE.version)
    throw new Error(
      `${WEBHOOKS_SOURCE.package} in ${dir} is version ${pkg.version ?? '(none)'}; the subset is pinned to ${WEBHOOKS_SOURCE.version} (change WEBHOOKS_SOURCE to move)`,
    );
  return JSON.parse(readFileSync(join(dir, WEBHOOKS_SOURCE.file), 'utf8')) as JsonObject;
}

async function main(): Promise<void> {
  const cwd = process.cwd();
  const subset = extractWebhooksSubset(
    readWebhooksDescription(webhooksPackageDir(process.argv.slice(2), cwd)),
  );
  await writeFormattedJson(join(cwd, WEBHOOKS_SUBSET_PATH), subset);
  const events = Object.keys(subset.webhooks as JsonObject).length;
  const schemaCount = Object.keys((subset.components as { schemas: JsonObject }).schemas).length;
  process.stdout.write(`${WEBHOOKS_SUBSET_PATH}: ${events} events, ${schemaCount} schemas\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
