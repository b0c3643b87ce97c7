/**
 * Where the local git host keeps a repository: `<root>/<host>/<owner>/<name>.git`, a bare repository
 * (`owner` may contain `/`, which becomes nested folders, as GitLab subgroups do).
 *
 * Invariant: a resolved path is inside the root, both as text (after the names were validated) and
 * on disk (after symbolic links are followed), so a link planted under the root cannot lead a request
 * to a repository elsewhere.
 */
import { mkdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createGit, expectSuccess, type GitIdentity } from './git-cli';
import type { RepositoryKey } from '../contract';
import { assertValid, checkBranchName, checkRepositoryKey } from './names';

/** The path a repository would have; does not touch the disk. Throws `InvalidGitNameError` for bad keys. */
export function repositoryPath(root: string, repo: RepositoryKey): string {
  const key = assertValid('repository', checkRepositoryKey(repo));
  const absoluteRoot = resolve(root);
  const path = resolve(absoluteRoot, key.host, ...key.owner.split('/'), `${key.name}.git`);
  if (!isInside(absoluteRoot, path))
    throw new Error(`repository path escapes the root: ${key.owner}/${key.name}`);
  return path;
}

/**
 * The on-disk path of an existing repository, or null when there is none. Throws when the path
 * leads outside the root through a symbolic link.
 */
export async function existingRepositoryPath(root: string, repo: RepositoryKey): Promise<string | null> {
  const path = repositoryPath(root, repo);
  let real: string;
  try {
    real = await realpath(path);
    if (!(await stat(real)).isDirectory()) return null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  const realRoot = await realpath(resolve(root));
  if (!isInside(realRoot, real))
    throw new Error(`repository ${repo.owner}/${repo.name} resolves outside the git root`);
  return real;
}

export interface InitBareRepositoryOptions {
  defaultBranch?: string;
  identity?: GitIdentity;
}

/**
 * Creates (or re-initialises, which is harmless) a bare repository for `repo` under `root` and
 * returns its path. Used by tests, the demo and operators adding a repository.
 */
export async function initBareRepository(
  root: string,
  repo: RepositoryKey,
  options: InitBareRepositoryOptions = {},
): Promise<string> {
  const path = repositoryPath(root, repo);
  const branch = assertValid('default branch', checkBranchName(options.defaultBranch ?? 'main'));
  const git = createGit({ identity: options.identity ?? { name: 'railyard', email: 'railyard@localhost' } });
  await mkdir(resolve(root), { recursive: true });
  // The target is an absolute path, so git cannot read it as an option.
  await expectSuccess(git, ['init', '--quiet', '--bare', `--initial-branch=${branch}`, path], {
    dir: resolve(root),
  });
  return path;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return (
    rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) && join(root, rel) === path
  );
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
