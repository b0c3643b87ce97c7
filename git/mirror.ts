/**
 * Mirrors: a bare repository per remote repository, in the local host's layout under the worker's data
 * folder, that git work (trial merges, test-branch composition, file reads, checkouts) runs in.
 *
 * Rules:
 * - A mirror is a cache. It is created on first use and filled by fetching exactly the refs (or
 *   commits) a call needs, so a worker that has never seen a repository, or whose data folder was
 *   wiped, serves it like any other. Nothing is trusted from it that the remote could contradict:
 *   landing goes back to the remote with compare-and-swap.
 * - The credential travels only as an `http.extraHeader` in GIT_CONFIG_* environment variables of the
 *   one git process that needs it: never in a URL, an argument (visible to `ps`), a config file on
 *   disk or a credential helper. Errors quote git's stderr, which never holds it (git prints URLs,
 *   not headers), and the URL is credential-free by construction.
 * - Calls that write refs of one mirror are serialised in this process, since git fails rather than
 *   waits when two processes lock the same ref.
 */
import { createGit, type Git, type GitIdentity, type GitResult } from './git-cli';
import type { RepoAccess } from './commits';
import type { RepositoryKey } from '../contract';
import type { ProcessRunner } from '../platform/process-runner';
import { existingRepositoryPath, initBareRepository } from './repository-path';

export interface Remote {
  /** `https://<host>/<owner>/<name>.git`, without any credential. */
  url: string;
  /** The `Authorization` header value git sends (e.g. Basic x-access-token:<token>). */
  authorization: () => Promise<string>;
}

export interface MirrorOptions {
  root: string;
  identity: GitIdentity;
  gitBinary?: string;
  gitTimeoutMs?: number;
  /** Who starts git's processes (the worker's process broker); this process by default. */
  runner?: ProcessRunner;
}

export interface Mirrors {
  readonly git: Git;
  /** The mirror of `repo`, created empty when missing. */
  open(repo: RepositoryKey): Promise<RepoAccess>;
  /** Runs `git <args>` in the mirror with the remote's credential, serialised with other writers. */
  withRemote(repo: RepositoryKey, remote: Remote, args: readonly string[]): Promise<GitResult>;
}

export function createMirrors(options: MirrorOptions): Mirrors {
  const git = createGit({
    identity: options.identity,
    binary: options.gitBinary,
    timeoutMs: options.gitTimeoutMs ?? 300_000,
    runner: options.runner,
  });
  const locks = new Map<string, Promise<unknown>>();

  async function open(repo: RepositoryKey): Promise<RepoAccess> {
    const existing = await existingRepositoryPath(options.root, repo);
    if (existing !== null) return { git, dir: existing };
    const dir = await initBareRepository(options.root, repo, { identity: options.identity });
    return { git, dir };
  }

  /** Runs `fn` after every earlier call for the same mirror has settled. */
  function serialised<T>(dir: string, fn: () => Promise<T>): Promise<T> {
    const before = locks.get(dir) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    locks.set(dir, settled);
    void settled.then(() => {
      if (locks.get(dir) === settled) locks.delete(dir);
    });
    return run;
  }

  return {
    git,
    open,
    async withRemote(repo, remote, args) {
      const { dir } = await open(repo);
      return serialised(dir, async () => {
        const env = {
          GIT_CONFIG_COUNT: '2',
          GIT_CONFIG_KEY_0: 'http.extraHeader',
          GIT_CONFIG_VALUE_0: `Authorization: ${await remote.authorization()}`,
          // No helper may offer (or store) another credential.
          GIT_CONFIG_KEY_1: 'credential.helper',
          GIT_CONFIG_VALUE_1: '',
          GIT_ASKPASS: '',
        };
        return git(args, { dir, env });
      });
    },
  };
}
