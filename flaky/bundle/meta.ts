/**
 * meta.json, the first entry of a Trunk bundle, read tolerantly across the versions the CLI has
 * written. Trunk's own reader tries its schemas newest first (V0_7_8 … V0_5_29, each the one before
 * plus fields) and takes the first that parses; unknown fields are ignored. Here only the fields
 * railyard uses must be present and well-formed: the repository, its head commit and branch, and the
 * file sets (which entry is which file). Everything else is optional, so an older or newer CLI's
 * bundle is read as long as those are there; `schema` names the newest Trunk schema the document
 * satisfies, for the log and the tests.
 *
 * Invariant: the result holds only bounded, control-character-free text; a field that is present but
 * wrong refuses the bundle (meta_malformed), naming the field.
 */
import { z } from 'zod';
import { refuse } from './errors';

export type MetaSchema = 'V0_7_8' | 'V0_7_7' | 'V0_6_2' | 'V0_5_34' | 'V0_5_29' | 'partial';

export type ResultSource = 'junit' | 'internal';

export interface BundleMeta {
  readonly schema: MetaSchema;
  readonly cliVersion?: string;
  readonly repo: { readonly host: string; readonly owner: string; readonly name: string };
  readonly commitSha: string;
  readonly branch: string;
  /** '' when the bundle has none (older than V0_7_6, or no TRUNK_VARIANT). */
  readonly variant: string;
  /** CI variables the CLI captured (string values only). */
  readonly envs: ReadonlyMap<string, string>;
  /** The original path of each bundled file, by its entry name (`junit/0` → `reports/a.xml`). */
  readonly originalPaths: ReadonlyMap<string, string>;
  /** JUnit files when any file set of type Junit has files, else the protobuf reports. */
  readonly resultSource: ResultSource;
}

// eslint-disable-next-line no-control-regex -- refusing control characters is the point.
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const text = (max: number) =>
  z.string().trim().max(max).regex(NO_CONTROL, { message: 'must not contain control characters' });
const required = (max: number) => text(max).min(1, { message: 'must not be empty' });

const BundledFile = z.object({
  original_path: z.string(),
  original_path_rel: z.string().nullish(),
  path: z.string().max(1_000),
});

const MetaDocument = z.object({
  version: z.string().optional(),
  cli_version: z.string().max(200).optional(),
  repo: z.object({
    repo: z.object({ host: required(255), owner: required(255), name: required(255) }),
    repo_head_sha: required(100),
    repo_head_branch: required(255),
  }),
  file_sets: z
    .array(z.object({ file_set_type: z.string(), files: z.array(BundledFile).max(100_000) }))
    .max(10_000),
  envs: z.record(z.string(), z.unknown()).nullish(),
  variant: text(255).nullish(),
  internal_bundled_file: BundledFile.nullish(),
});

const BASE = ['version', 'cli_version', 'org', 'repo', 'bundle_upload_id', 'tags', 'file_sets', 'envs'];
const BASE_MORE = ['upload_time_epoch', 'quarantined_tests'];
const JUNIT = ['num_files', 'num_tests'];
/**
 * The fields each Trunk schema requires (Option fields may be absent, as serde allows), newest first.
 * V0_7_6 and V0_6_3 require what V0_7_7 does, so Trunk's reader never picks them; neither does this.
 */
const SCHEMAS: readonly (readonly [MetaSchema, readonly string[]])[] = [
  ['V0_7_8', [...BASE, ...BASE_MORE, ...JUNIT, 'command_line', 'bundle_upload_id_v2', 'failed_tests']],
  ['V0_7_7', [...BASE, ...BASE_MORE, ...JUNIT, 'command_line', 'bundle_upload_id_v2']],
  ['V0_6_2', [...BASE, ...BASE_MORE, ...JUNIT, 'command_line']],
  ['V0_5_34', [...BASE, ...BASE_MORE, ...JUNIT]],
  ['V0_5_29', [...BASE, ...BASE_MORE]],
];

export function metaSchemaOf(document: Record<string, unknown>): MetaSchema {
  for (const [schema, fields] of SCHEMAS) if (fields.every((f) => document[f] !== undefined)) return schema;
  return 'partial';
}

const MAX_PATH_CHARS = 1_000;
const cutPath = (path: string) => (path.length <= MAX_PATH_CHARS ? path : `…${path.slice(-MAX_PATH_CHARS)}`);

/** Parses meta.json's bytes; refuses the bundle (meta_malformed) with the first problem found. */
export function parseBundleMeta(bytes: Uint8Array): BundleMeta {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return refuse({ kind: 'meta_malformed', detail: 'is not valid JSON' });
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    return refuse({ kind: 'meta_malformed', detail: 'is not a JSON object' });
  const parsed = MetaDocument.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return refuse({
      kind: 'meta_malformed',
      detail: missing
        ? `has no field '${field}'`
        : `field '${field}' ${issue.message.replace(/^Invalid input: /, '')}`,
    });
  }
  const meta = parsed.data;
  const originalPaths = new Map<string, string>();
  let junitFiles = 0;
  for (const set of meta.file_sets) {
    for (const file of set.files) {
      originalPaths.set(file.path, cutPath(file.original_path_rel ?? file.original_path));
      if (set.file_set_type === 'Junit') junitFiles += 1;
    }
  }
  const internal = meta.internal_bundled_file;
  if (internal)
    originalPaths.set(internal.path, cutPath(internal.original_path_rel ?? internal.original_path));
  const envs = new Map<string, string>();
  for (const [name, value] of Object.entries(meta.envs ?? {}))
    if (typeof value === 'string') envs.set(name, value);
  return {
    schema: metaSchemaOf(document as Record<string, unknown>),
    ...(meta.cli_version === undefined ? {} : { cliVersion: meta.cli_version }),
    repo: meta.repo.repo,
    commitSha: meta.repo.repo_head_sha,
    branch: meta.repo.repo_head_branch,
    variant: meta.variant ?? '',
    envs,
    originalPaths,
    resultSource: junitFiles > 0 ? 'junit' : 'internal',
  };
}
