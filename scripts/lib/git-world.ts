/**
 * A real git world for the chaos run, the fuzzer and the live-API tests: one bare repository under a git root, laid out
 * as the local git host expects (`<root>/<host>/<owner>/<name>.git`, PRs at `refs/pull/<n>/head`).
 *
 * Rules:
 * - Pull requests are written in one `git fast-import` pass, so hundreds of PRs take well under a
 *   second (a clone-commit-push per PR takes minutes on two cores).
 * - The repository logs every ref update (`core.logAllRefUpdates=always`), so a check can read every
 *   commit the target branch ever pointed to, not only the history that ended up on it.
 * - git runs with no system or user configuration, like the git host itself.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { devNull } from 'node:os';
import path from 'node:path';
import type { RepositoryKey } from '../../contract';
import { initBareRepository } from '../../git/repository-path';

export interface PrSpec {
  number: number;
  /** The head commit's subject, which the local host reports as the PR title. */
  title: string;
  files: Record<string, string>;
}

export interface GitWorld {
  root: string;
  repo: RepositoryKey;
  bare: string;
  git(...args: string[]): string;
  tip(branch?: string): string;
  /** Opens every PR in `specs` as one commit on top of `base` (default: main's tip); returns head shas. */
  openPrs(specs: PrSpec[], base?: string): Map<number, string>;
  /** Every commit `branch` pointed to, oldest first, from the ref log. */
  refHistory(branch?: string): string[];
  treeOf(sha: string): string;
  /** Subjects of the first-parent line of `branch`, newest first. */
  firstParentSubjects(branch?: string): string[];
}

const AUTHOR = 'Chaos Author <chaos@example.com>';

function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: devNull,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    LC_ALL: 'C',
  };
}

/** One fast-import commit; `data` lengths are in bytes. */
function commitCommand(ref: string, message: string, from: string | null, files: Record<string, string>) {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const when = Math.floor(Date.now() / 1000);
  return [
    `commit ${ref}\n`,
    `author ${AUTHOR} ${when} +0000\n`,
    `committer ${AUTHOR} ${when} +0000\n`,
    data(message),
    from ? `from ${from}\n` : '',
    ...Object.entries(files).map(([file, content]) => `M 100644 inline ${file}\n${data(content)}`),
    '\n',
  ].join('');
}

export async function createGitWorld(
  root: string,
  repo: RepositoryKey,
  initialFiles: Record<string, string>,
): Promise<GitWorld> {
  const bare = await initBareRepository(root, repo, { defaultBranch: 'main' });
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', bare, ...args], {
      env: gitEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    }).trim();
  const fastImport = (stream: string) =>
    execFileSync('git', ['-C', bare, 'fast-import', '--quiet', '--force'], {
      env: gitEnv(),
      input: stream,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
  git('config', 'core.logAllRefUpdates', 'always');
  fastImport(commitCommand('refs/heads/main', 'initial\n', null, initialFiles));

  const world: GitWorld = {
    root,
    repo,
    bare,
    git,
    tip: (branch = 'main') => git('rev-parse', `refs/heads/${branch}`),
    openPrs(specs, base = world.tip()) {
      fastImport(
        specs.map((s) => commitCommand(`refs/pull/${s.number}/head`, `${s.title}\n`, base, s.files)).join(''),
      );
      // One rev-parse for all heads: a process per PR, forked from a test's large process, cost
      // 2.8 CPU-seconds for 203 PRs (the concurrency test).
      const shas =
        specs.length === 0
          ? []
          : git('rev-parse', ...specs.map((s) => `refs/pull/${s.number}/head`)).split('\n');
      if (shas.length !== specs.length)
        throw new Error(`rev-parse gave ${shas.length} heads for ${specs.length} PRs`);
      return new Map(specs.map((s, i) => [s.number, shas[i]!]));
    },
    refHistory(branch = 'main') {
      const log = path.join(bare, 'logs', 'refs', 'heads', branch);
      if (!fs.existsSync(log)) return [];
      return fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[1]!);
    },
    treeOf: (sha) => git('rev-parse', `${sha}^{tree}`),
    firstParentSubjects: (branch = 'main') =>
      git('log', '--first-parent', '--format=%s', `refs/heads/${branch}`).split('\n'),
  };
  return world;
}
