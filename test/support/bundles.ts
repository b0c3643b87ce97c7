/**
 * Builds Trunk bundles for tests the way the CLI does: a tar archive (tar-stream's packer, which
 * writes the same ustar headers as the CLI's tar crate) compressed by the real `zstd` program at the
 * CLI's level 15. Entries are written in the order given, so tests control what comes first.
 * Hostile archives (links, devices, `..` names) are made by passing such headers.
 */
import { spawnSync } from 'node:child_process';
import { pack, type Header } from 'tar-stream';

export interface BundleEntry {
  readonly name: string;
  readonly content?: string | Uint8Array;
  /** Header fields beyond the name (type, linkname, …) for hostile entries. */
  readonly header?: Partial<Header>;
}

export async function tarOf(entries: readonly BundleEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    archive.on('end', () => resolve());
    archive.on('error', reject);
  });
  for (const entry of entries) {
    const body = entry.content === undefined ? undefined : Buffer.from(entry.content);
    await new Promise<void>((resolve, reject) => {
      const header = { name: entry.name, mode: 0o644, mtime: new Date(0), ...entry.header };
      const callback = (err?: Error | null) => (err ? reject(err) : resolve());
      if (body === undefined) archive.entry(header, callback);
      else archive.entry({ ...header, size: body.length }, body, callback);
    });
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** `zstd -15` of the bytes (the CLI's level), through the zstd program. */
export function zstd(bytes: Uint8Array, level = 15): Buffer {
  const run = spawnSync('zstd', [`-${level}`, '-q', '-c'], { input: bytes, maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`zstd failed: ${run.stderr.toString()}`);
  return run.stdout;
}

export const bundleOf = async (entries: readonly BundleEntry[]) => zstd(await tarOf(entries));

export interface MetaOptions {
  repo?: { host: string; owner: string; name: string };
  sha?: string;
  branch?: string;
  variant?: string;
  envs?: Record<string, string>;
  junit?: readonly string[];
  internal?: readonly string[];
  internalBundled?: boolean;
}

/** A V0_7_8 meta.json as the CLI writes it (snake_case, every field of the newest schema). */
export function metaJson(options: MetaOptions = {}): Record<string, unknown> {
  const repo = options.repo ?? { host: 'github.com', owner: 'acme', name: 'shop' };
  const file = (original: string, index: number, dir: string) => ({
    original_path: `/work/${original}`,
    original_path_rel: original,
    path: `${dir}/${index}`,
    owners: [],
    team: null,
  });
  const sets = [];
  if (options.junit?.length)
    sets.push({
      file_set_type: 'Junit',
      files: options.junit.map((f, i) => file(f, i, 'junit')),
      glob: '**/*.xml',
    });
  if (options.internal?.length)
    sets.push({
      file_set_type: 'Internal',
      files: options.internal.map((f, i) => file(f, i, 'internal')),
      glob: '**/*.bin',
    });
  return {
    version: '1',
    cli_version: 'cargo=0.0.0 git=test rustc=1.95.0',
    org: 'acme',
    repo: {
      repo,
      repo_root: '/work',
      repo_url: `https://${repo.host}/${repo.owner}/${repo.name}`,
      repo_head_sha: options.sha ?? 'c0ffee0000000000000000000000000000000001',
      repo_head_sha_short: 'c0ffee0',
      repo_head_branch: options.branch ?? 'main',
      repo_head_commit_epoch: 1_763_000_000,
      repo_head_commit_message: 'a commit',
      repo_head_author_name: 'A. Dev',
      repo_head_author_email: 'dev@example.com',
    },
    bundle_upload_id: 'to-be-replaced',
    tags: [],
    file_sets: sets,
    envs: options.envs ?? {},
    upload_time_epoch: 1_763_000_100,
    test_command: null,
    os_info: 'linux',
    quarantined_tests: [],
    codeowners: null,
    num_files: (options.junit?.length ?? 0) + (options.internal?.length ?? 0),
    num_tests: 0,
    command_line: 'trunk-analytics-cli upload --junit-paths **/*.xml',
    trunk_envs: {},
    bundle_upload_id_v2: 'to-be-replaced-v2',
    variant: options.variant ?? null,
    internal_bundled_file: options.internalBundled
      ? {
          original_path: '/tmp/internal.bin',
          original_path_rel: null,
          path: 'internal.bin',
          owners: [],
          team: null,
        }
      : null,
    failed_tests: [],
  };
}
