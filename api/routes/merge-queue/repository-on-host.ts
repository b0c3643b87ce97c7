/**
 * Whether a repository a queue is created for exists on the git host that will serve it, checked by
 * the API before the queue starts, so a typo gets a sentence instead of a queue that can never test.
 *
 * Rules:
 * - Only the local host is checked here: its bare repositories live under RAILYARD_GIT_ROOT, which the
 *   API reads (docker-compose mounts it read-only). Repositories of the GitHub App's host are owned
 *   through linked installations (ADR 0008), which already prove they exist.
 * - When the git root itself is not there (an API on another machine than the git host), nothing can
 *   be told and nothing is refused.
 * - The sentence names the repository and the command that creates it; it is said only to an
 *   organisation that owns or has just claimed the name (the route releases such a claim), so it tells
 *   nobody anything about another organisation's repositories.
 */
import fs from 'node:fs/promises';
import { repositoryPath } from '../../../git/repository-path';
import { repositoryLabel, type RepositoryKey } from '../../../contract';

/** Null when the repository exists (or cannot be checked); else why the queue cannot be created. */
export type RepositoryOnHost = (repo: RepositoryKey) => Promise<string | null>;

export function localRepositoryCheck(opts: { gitRoot: string; gitHubHost?: string }): RepositoryOnHost {
  return async (repo) => {
    if (opts.gitHubHost !== undefined && repo.host.toLowerCase() === opts.gitHubHost.toLowerCase())
      return null;
    if (!(await isDirectory(opts.gitRoot))) return null;
    if (await isDirectory(repositoryPath(opts.gitRoot, repo))) return null;
    const label = repositoryLabel(repo);
    return `Repository ${label} does not exist on the local git host; create it with \`npm run repos -- create ${label}\` and push its target branch first.`;
  };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}
