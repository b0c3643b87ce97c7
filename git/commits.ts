/**
 * Reading commits and refs of one repository with plumbing commands. Every sha given here has been
 * validated (names.checkSha) or comes from git itself, and rev arguments follow `--end-of-options`,
 * so nothing read from a request is parsed as an option.
 */
import { expectSuccess, type Git } from './git-cli';

export interface Person {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  time: number;
  /** `+hhmm` / `-hhmm`, as recorded. */
  timezone: string;
}

export interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  /** The raw message, exactly as stored (replayed commits keep it byte for byte). */
  message: string;
}

export interface RepoAccess {
  git: Git;
  dir: string;
}

const PERSON = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/;

function parsePerson(line: string | undefined, sha: string): Person {
  const match = PERSON.exec(line ?? '');
  if (!match) throw new Error(`commit ${sha} has an unreadable author or committer line`);
  return {
    name: match[1] ?? '',
    email: match[2] ?? '',
    time: Number(match[3]),
    timezone: match[4] ?? '+0000',
  };
}

export async function readCommit(repo: RepoAccess, sha: string): Promise<Commit> {
  return parseCommit(sha, await expectSuccess(repo.git, ['cat-file', 'commit', sha], { dir: repo.dir }));
}

/** Commit `sha` from its raw object, as `git cat-file commit` prints it. */
export function parseCommit(sha: string, raw: string): Commit {
  const split = raw.indexOf('\n\n');
  const headerText = split === -1 ? raw : raw.slice(0, split);
  const message = split === -1 ? '' : raw.slice(split + 2);
  const headers = headerText.split('\n').filter((line) => !line.startsWith(' '));
  const value = (name: string) =>
    headers.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
  return {
    sha,
    tree: value('tree')[0] ?? '',
    parents: value('parent'),
    author: parsePerson(value('author')[0], sha),
    committer: parsePerson(value('committer')[0], sha),
    message,
  };
}

/** The first line of a message, as GitHub shows a commit's title. */
export function subjectOf(message: string): string {
  return message.split('\n', 1)[0]?.trim() ?? '';
}

/** The sha a ref points at, or null when the ref does not exist. `ref` is a full, validated ref name. */
export async function readRef(repo: RepoAccess, ref: string): Promise<string | null> {
  const result = await repo.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    dir: repo.dir,
  });
  if (result.exitCode === 0) return result.stdout.trim();
  if (result.exitCode === 1) return null;
  throw new Error(`git rev-parse ${ref} failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
}

/**
 * The tree of commit `sha` as this repository resolves it (replace refs included, as every reader of
 * the repository would see it), or null when it has no such commit.
 */
export async function treeOf(repo: RepoAccess, sha: string): Promise<string | null> {
  const result = await repo.git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${sha}^{tree}`], {
    dir: repo.dir,
  });
  if (result.exitCode === 0) return result.stdout.trim();
  if (result.exitCode === 1 || result.exitCode === 128) return null;
  throw new Error(`git rev-parse ${sha}^{tree} failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
}

export async function commitExists(repo: RepoAccess, sha: string): Promise<boolean> {
  const result = await repo.git(['cat-file', '-e', `${sha}^{commit}`], { dir: repo.dir });
  return result.exitCode === 0;
}

export async function isAncestor(repo: RepoAccess, ancestor: string, descendant: string): Promise<boolean> {
  const result = await repo.git(['merge-base', '--is-ancestor', ancestor, descendant], { dir: repo.dir });
  if (result.exitCode === 0 || result.exitCode === 1) return result.exitCode === 0;
  throw new Error(`git merge-base --is-ancestor failed (exit ${result.exitCode}): ${result.stderr.trim()}`);
}

/** Commits in `include` but not in any of `exclude`, oldest first, merge commits left out. */
export async function listCommits(repo: RepoAccess, include: string, exclude: string[]): Promise<string[]> {
  const args = [
    'rev-list',
    '--reverse',
    '--topo-order',
    '--no-merges',
    include,
    ...exclude.map((sha) => `^${sha}`),
  ];
  const out = await expectSuccess(repo.git, args, { dir: repo.dir });
  return out.split('\n').filter((line) => line.length > 0);
}
