/**
 * The optional test configuration a repository carries for the `command` runner, read from the
 * tested commit (so a PR that changes its tests' command is tested with the command it brings):
 *
 *   .railyard/merge-queue.json
 *   { "version": 1, "command": "npm ci && npm test", "junitGlobs": ["reports/**\/*.xml"] }
 *
 * `command` is run by `bash -c` in the checkout; `junitGlobs` replaces the default JUnit globs (at
 * most MAX_JUNIT_GLOBS of at most MAX_JUNIT_GLOB_CHARS characters: each is tried on every file).
 * Whether the queue's own setting or this file wins is the caller's choice. Problems map to Trunk's
 * START_TEST_RUN_CONFIG_* reasons, so a run that cannot start fails the way Trunk's would.
 */
import { z } from 'zod';
import type { RepositoryKey } from '../contract';
import type { GitHost } from '../git/git-host';

export const REPO_TEST_CONFIG_PATH = '.railyard/merge-queue.json';

/** Bounds on `junitGlobs`: each glob is tried against every file of the checkout (junit-files.ts). */
export const MAX_JUNIT_GLOBS = 50;
export const MAX_JUNIT_GLOB_CHARS = 500;

const RepoTestConfigSchema = z
  .object({
    version: z.literal(1),
    command: z.string().trim().min(1).max(10_000),
    junitGlobs: z
      .array(
        z
          .string()
          .min(1, { message: 'must not be empty' })
          .max(MAX_JUNIT_GLOB_CHARS, { message: `must be at most ${MAX_JUNIT_GLOB_CHARS} characters long` }),
      )
      .max(MAX_JUNIT_GLOBS, { message: `must have at most ${MAX_JUNIT_GLOBS} globs` })
      .optional(),
  })
  .strict();

export type RepoTestConfig = z.infer<typeof RepoTestConfigSchema>;

export type RepoTestConfigLookup =
  | { kind: 'found'; config: RepoTestConfig }
  | { kind: 'absent'; reason: 'START_TEST_RUN_CONFIG_NOT_FOUND' }
  | {
      kind: 'invalid';
      reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' | 'START_TEST_RUN_CONFIG_BAD_VERSION';
      detail: string;
    };

export async function readRepoTestConfig(
  gitHost: Pick<GitHost, 'readFileAtCommit'>,
  repo: RepositoryKey,
  sha: string,
): Promise<RepoTestConfigLookup> {
  const file = await gitHost.readFileAtCommit(repo, sha, REPO_TEST_CONFIG_PATH);
  if (file.kind === 'not_found') return { kind: 'absent', reason: 'START_TEST_RUN_CONFIG_NOT_FOUND' };
  return parseRepoTestConfig(file.content);
}

export function parseRepoTestConfig(text: string): RepoTestConfigLookup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = `${REPO_TEST_CONFIG_PATH} is not JSON: ${(error as Error).message}`;
    return { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE', detail };
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof json === 'object' && json !== null && version !== 1) {
    const detail = `${REPO_TEST_CONFIG_PATH} has version ${JSON.stringify(version)}; this railyard reads version 1`;
    return { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_BAD_VERSION', detail };
  }
  const parsed = RepoTestConfigSchema.safeParse(json);
  if (parsed.success) return { kind: 'found', config: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${fieldOf(issue.path) || '(root)'}: ${issue.message}`);
  return {
    kind: 'invalid',
    reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
    detail: `${REPO_TEST_CONFIG_PATH}: ${problems.join('; ')}`,
  };
}

/** `junitGlobs[3]`, as the API names fields. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}
