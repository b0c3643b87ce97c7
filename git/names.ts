/**
 * Validation of every name that reaches the `git` binary from outside: repository keys, branch names,
 * pull-request numbers and commit ids. The rule is allow-listing, not escaping: a name that passes
 * can be used as an argument or a path segment as is, because it
 *  - never starts with `-` (so git cannot read it as an option such as `--upload-pack=...`),
 *  - has no `..`, empty, `.` segment, space or control character (so it cannot leave the repository
 *    root, split an argument or forge a log line),
 *  - has no owner segment ending in `.git`, in any case: the local host keeps a repository at
 *    `<owner>/<name>.git`, so an owner such as `victim/app.git/refs/heads` would put a "repository"
 *    inside the victim's bare repository (its refs, objects or hooks) — issue 24,
 *  - follows `git check-ref-format` (branches), which git itself would enforce later, but with a
 *    clear message and before any process starts.
 * Functions return a `NameCheck` instead of throwing; `assertValid` turns a failed check into an
 * `InvalidGitNameError` for adapter code, where a bad name is a caller bug.
 */

import type { RepositoryKey } from '../contract';

export type NameCheck<T> = { ok: true; value: T } | { ok: false; problem: string };

export class InvalidGitNameError extends Error {
  override readonly name = 'InvalidGitNameError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`invalid ${field}: ${problem}`);
  }
}

const MAX_SEGMENT = 100;
const MAX_OWNER_SEGMENTS = 20;
const MAX_BRANCH = 255;
const MAX_PR_NUMBER = 4_294_967_295;
const SEGMENT = /^[A-Za-z0-9._-]+$/;
const HOST = /^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const ok = <T>(value: T): NameCheck<T> => ({ ok: true, value });
const fail = <T>(problem: string): NameCheck<T> => ({ ok: false, problem });

/** One path segment of an owner or repository name (GitHub allows `.github`, so a leading dot is fine). */
function checkSegment(segment: string): string | null {
  if (segment.length === 0) return 'has an empty segment';
  if (segment.length > MAX_SEGMENT) return `has a segment longer than ${MAX_SEGMENT} characters`;
  if (segment === '.' || segment === '..') return 'has a "." or ".." segment';
  if (segment.startsWith('-')) return 'has a segment starting with "-"';
  if (!SEGMENT.test(segment)) return 'may only contain letters, digits, ".", "_" and "-"';
  return null;
}

/** An owner segment: also never a repository's folder (`<name>.git`), whatever the case. */
function checkOwnerSegment(segment: string): string | null {
  const problem = checkSegment(segment);
  if (problem) return problem;
  if (/\.git$/i.test(segment)) return 'has a segment ending in ".git", which names a repository\'s folder';
  return null;
}

export function checkRepositoryKey(repo: RepositoryKey): NameCheck<RepositoryKey> {
  const { host, owner, name } = repo;
  if (typeof host !== 'string' || !HOST.test(host) || host.startsWith('-') || host.startsWith('.')) {
    return fail('repo.host must be a host name such as github.com');
  }
  if (host.includes('..')) return fail('repo.host must not contain ".."');
  if (typeof owner !== 'string') return fail('repo.owner must be a string');
  const ownerSegments = owner.split('/');
  if (ownerSegments.length > MAX_OWNER_SEGMENTS) return fail('repo.owner has too many "/" segments');
  for (const segment of ownerSegments) {
    const problem = checkOwnerSegment(segment);
    if (problem) return fail(`repo.owner ${problem}`);
  }
  if (typeof name !== 'string') return fail('repo.name must be a string');
  const problem = name.includes('/') ? 'must not contain "/"' : checkSegment(name);
  if (problem) return fail(`repo.name ${problem}`);
  return ok({ host, owner, name });
}

/**
 * A branch name (without `refs/heads/`), following `git check-ref-format --branch` plus our own
 * limits: no leading `-`, no spaces or control characters, at most 255 characters.
 */
export function checkBranchName(branch: string): NameCheck<string> {
  if (typeof branch !== 'string' || branch.length === 0) return fail('branch name is empty');
  if (branch.length > MAX_BRANCH) return fail(`branch name is longer than ${MAX_BRANCH} characters`);
  if (branch.startsWith('-')) return fail('branch name must not start with "-"');
  if (CONTROL_OR_SPACE.test(branch)) return fail('branch name must not contain spaces or control characters');
  if (/[~^:?*[\\]/.test(branch)) return fail('branch name must not contain ~ ^ : ? * [ or \\');
  if (branch.includes('..')) return fail('branch name must not contain ".."');
  if (branch.includes('@{') || branch === '@') return fail('branch name must not be "@" or contain "@{"');
  if (branch === 'HEAD' || branch.startsWith('refs/'))
    return fail('branch name must not be HEAD or start with refs/');
  if (branch.endsWith('.')) return fail('branch name must not end with "."');
  for (const component of branch.split('/')) {
    if (component.length === 0) return fail('branch name must not have empty "/" components');
    if (component.startsWith('.')) return fail('branch name components must not start with "."');
    if (component.endsWith('.lock')) return fail('branch name components must not end with ".lock"');
  }
  return ok(branch);
}

/**
 * The rules above as JSON Schema `pattern`s (ECMA-262 syntax that Python's `re` reads alike), for the
 * OpenAPI document, so clients and fuzzers can generate valid names. The checks stay the authority:
 * every name a check accepts matches its pattern (a unit test holds them to it), while a pattern may
 * accept names its check refuses (`..`, `.` segments, a branch `HEAD` or ending in `.lock`, lengths),
 * which regular expressions without look-ahead cannot say simply. Surrounding whitespace, which the
 * API trims before checking, is not part of the patterns.
 */
const SEGMENT_PATTERN = '[A-Za-z0-9._][A-Za-z0-9._-]{0,99}';
export const REPO_HOST_PATTERN = '^[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?$';
export const REPO_OWNER_PATTERN = `^${SEGMENT_PATTERN}(?:/${SEGMENT_PATTERN}){0,${MAX_OWNER_SEGMENTS - 1}}$`;
export const REPO_NAME_PATTERN = `^${SEGMENT_PATTERN}$`;
const BRANCH_REFUSED = String.raw`\x00-\x20\x7f~^:?*\[\\/`;
export const BRANCH_PATTERN = `^[^${BRANCH_REFUSED}.-][^${BRANCH_REFUSED}]*(?:/[^${BRANCH_REFUSED}.][^${BRANCH_REFUSED}]*)*$`;

export function checkPullRequestNumber(value: number): NameCheck<number> {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_PR_NUMBER) {
    return fail(`pull request number must be an integer from 0 to ${MAX_PR_NUMBER}`);
  }
  return ok(value);
}

/** A full object id (SHA-1 or SHA-256, lower-case hex); abbreviations and rev expressions are refused. */
export function checkSha(value: string): NameCheck<string> {
  return typeof value === 'string' && SHA.test(value)
    ? ok(value)
    : fail('must be a full lower-case hex commit id');
}

/**
 * A file path inside a commit, for reading one file (e.g. the repository's test configuration):
 * relative, no `..` or `.` segments, no control characters, not starting with `-`.
 */
export function checkRepoFilePath(path: string): NameCheck<string> {
  if (typeof path !== 'string' || path.length === 0 || path.length > 1024)
    return fail('file path is empty or too long');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return fail('file path must not contain control characters');
  if (path.startsWith('/') || path.startsWith('-')) return fail('file path must be relative');
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return fail('file path has an empty, "." or ".." segment');
  return ok(path);
}

/** Unwraps a check or throws `InvalidGitNameError` naming the field. */
export function assertValid<T>(field: string, check: NameCheck<T>): T {
  if (check.ok) return check.value;
  throw new InvalidGitNameError(field, check.problem);
}

export const TEST_BRANCH_PREFIX = 'railyard-merge/';

/**
 * `<prefix>pr-<n>/<runId>` (`railyard-merge/` unless the host says otherwise): the runId is the
 * `testRunId` of getMergeQueueTestingDetails.
 */
export function testBranchName(prNumber: number, runId: string, prefix: string = TEST_BRANCH_PREFIX): string {
  const name = `${prefix}pr-${assertValid('pull request number', checkPullRequestNumber(prNumber))}/${runId}`;
  return assertValid('test branch name', checkBranchName(name));
}

/** Where the local host keeps a pull request's head (GitHub's own convention). */
export function pullRequestRef(prNumber: number): string {
  return `refs/pull/${assertValid('pull request number', checkPullRequestNumber(prNumber))}/head`;
}

export function branchRef(branch: string): string {
  return `refs/heads/${assertValid('branch', checkBranchName(branch))}`;
}
