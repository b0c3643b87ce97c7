/**
 * A real git world in a temporary folder for the git host and runner tests: a root with one bare
 * repository (through the host's own initBareRepository), and a working clone in which a test writes
 * commits and pushes them as branches or as pull requests (`refs/pull/<n>/head`).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createLocalGitHost, type LocalGitHost } from '../../git/local-git-host';
import type { RepositoryKey } from '../../contract';
import { initBareRepository } from '../../git/repository-path';
import { sharedProcessBroker, sharedSyncBroker } from './shared-brokers';

export interface GitFixture {
  dir: string;
  root: string;
  repo: RepositoryKey;
  bare: string;
  work: string;
  host: LocalGitHost;
  /** git in the working clone. */
  git(...args: string[]): string;
  /** git in the bare repository (what the queue sees). */
  bareGit(...args: string[]): string;
  /** Writes files (null deletes) and commits them on the current branch; returns the sha. */
  commit(message: string, files: Record<string, string | null>, author?: string): string;
  /** Starts a branch of the working clone at `from` (a sha or ref of the clone). */
  branchFrom(name: string, from: string): void;
  /** Pushes `sha` to `refs/pull/<n>/head` (opens or pushes to the PR). */
  pushPr(number: number, sha: string): void;
  closePr(number: number): void;
  pushBranch(branch: string, sha: string): void;
  tip(branch: string): string;
  /** File contents of `path` at `rev` in the bare repository. */
  show(rev: string, path: string): string;
  cleanup(): void;
}

/** Commits are dated one minute apart, in the order a test makes them. */
function gitEnv(author: string, clock: number): NodeJS.ProcessEnv {
  const [, name = 'Ada', email = 'ada@example.com'] = /^(.*) <(.*)>$/.exec(author) ?? [];
  return {
    PATH: process.env.PATH,
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_AUTHOR_DATE: `@${clock} +0000`,
    GIT_COMMITTER_DATE: `@${clock} +0000`,
  };
}

export async function createGitFixture(
  repo: RepositoryKey = { host: 'github.com', owner: 'acme', name: 'widgets' },
  /** The git root to create the bare repository in (another fixture's, to share a host); default own. */
  sharedRoot?: string,
): Promise<GitFixture> {
  let clock = 1_700_000_000;
  const env = (author = 'Ada Lovelace <ada@example.com>') => gitEnv(author, (clock += 60));
  // Every git process starts from a small helper, not forked from this (large) jest worker: the
  // fixture's own commands through a synchronous broker, the host's through the worker's kind; one
  // of each per jest worker (shared-brokers.ts).
  const commands = sharedSyncBroker();
  const processes = sharedProcessBroker();
  const run = (dir: string, args: string[], env: NodeJS.ProcessEnv): string =>
    commands.run('git', ['-C', dir, ...args], { env }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'railyard-git-'));
  const root = sharedRoot ?? join(dir, 'root');
  const bare = await initBareRepository(root, repo, { defaultBranch: 'main' });
  const work = join(dir, 'work');
  run(dir, ['clone', '--quiet', bare, work], env());
  const host = createLocalGitHost({ root, runner: processes });
  const fx: GitFixture = {
    dir,
    root,
    repo,
    bare,
    work,
    host,
    git: (...args) => run(work, args, env()),
    bareGit: (...args) => run(bare, args, env()),
    commit(message, files, author) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(work, path);
        if (content === null) {
          rmSync(full, { force: true });
        } else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
      }
      run(work, ['add', '-A'], env());
      run(work, ['commit', '--quiet', '--allow-empty', '-m', message], env(author));
      return run(work, ['rev-parse', 'HEAD'], env());
    },
    branchFrom: (name, from) => void run(work, ['checkout', '--quiet', '-B', name, from], env()),
    pushPr: (number, sha) =>
      void run(work, ['push', '--quiet', '--force', 'origin', `${sha}:refs/pull/${number}/head`], env()),
    closePr: (number) => void run(bare, ['update-ref', '-d', `refs/pull/${number}/head`], env()),
    pushBranch: (branch, sha) =>
      void run(work, ['push', '--quiet', '--force', 'origin', `${sha}:refs/heads/${branch}`], env()),
    tip: (branch) => run(bare, ['rev-parse', `refs/heads/${branch}`], env()),
    show: (rev, path) => run(bare, ['show', `${rev}:${path}`], env()),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  return fx;
}

/** A repository with `main` at a first commit holding `lines.txt` (a, b, c, d, e on separate lines). */
export async function createRepoWithMain(
  repo?: RepositoryKey,
  sharedRoot?: string,
): Promise<GitFixture & { base: string }> {
  const fx = await createGitFixture(repo, sharedRoot);
  const base = fx.commit('initial', { 'lines.txt': 'a\nb\nc\nd\ne\n', 'README.md': 'widgets\n' });
  fx.pushBranch('main', base);
  return { ...fx, base };
}
