/**
 * Applies one pull request on top of a commit with the queue's merge method, writing only objects
 * (commits and trees), never refs, never a work tree. The three methods produce what GitHub would:
 *  - `merge_commit`: one merge commit, parents (tip, PR head), "Merge pull request #n".
 *  - `squash`: one commit with the tree of that merge and the tip as only parent, authored by the PR's
 *    author, titled "<title> (#n)".
 *  A PR's own commit title and body (`commitMessage`, contract/commit-message.ts) replace the template's
 *  title and body of those two; a rebase keeps each commit's message.
 *  - `rebase`: each non-merge commit of the PR replayed in order, keeping author and message. A replay
 *    is a cherry-pick: a three-way merge whose base is the commit's parent. `git merge-tree` in git
 *    2.39 has no `--merge-base`, so the base is forced with throwaway commits (see `replay`).
 *
 * Invariant: the result is a pure function of (tip, PR head, method, message, identity), because
 * every date is derived from the commits involved (the latest committer date among them). Building
 * again, e.g. when an activity is retried, gives the same commit ids.
 *
 * What a composition needs of the commit it builds on is its tree and committer time (`Tip`); a commit
 * written here is known without reading it back, so a PR applied on the previous one's result costs no
 * `cat-file` for its tip (one git process fewer per PR applied, per commit replayed).
 */
import { expectSuccess, fixedDateEnv } from './git-cli';
import { listCommits, readCommit, subjectOf, type Commit, type RepoAccess } from './commits';
import type { MergeMethod, PullRequestAtSha } from './git-host';

/** A commit a PR is applied on: its tree and committer time (seconds), what the methods read of it. */
export interface Tip {
  sha: string;
  tree: string;
  time: number;
}

export type ApplyResult = ({ kind: 'applied' } & Tip) | { kind: 'conflict'; detail: string; files: string[] };

type TrialMerge = { kind: 'clean'; tree: string } | { kind: 'conflict'; detail: string; files: string[] };

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The Tip facts of a commit already in the repository (a base, a composition remembered). */
export async function readTip(repo: RepoAccess, sha: string): Promise<Tip> {
  const commit = await readCommit(repo, sha);
  return { sha, tree: commit.tree, time: commit.committer.time };
}

/** `exclude`: commits already on the way to `tip` under other ids (earlier PRs of the same batch). */
export async function applyPullRequest(
  repo: RepoAccess,
  method: MergeMethod,
  tip: Tip,
  pr: PullRequestAtSha,
  exclude: string[] = [],
): Promise<ApplyResult> {
  switch (method) {
    case 'merge_commit':
      return mergeCommit(repo, tip, pr);
    case 'squash':
      return squash(repo, tip, pr);
    case 'rebase':
      return rebase(repo, tip, pr, exclude);
    default: {
      const never: never = method;
      throw new Error(`unknown merge method ${String(never)}`);
    }
  }
}

/** A merge of two commits computed in memory; a conflict leaves nothing behind but loose objects. */
export async function trialMerge(repo: RepoAccess, ours: string, theirs: string): Promise<TrialMerge> {
  const args = ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs];
  const result = await repo.git(args, { dir: repo.dir });
  const [tree = '', ...rest] = result.stdout.split('\0');
  if (result.exitCode === 0 && OBJECT_ID.test(tree)) return { kind: 'clean', tree };
  if (result.exitCode === 1 && OBJECT_ID.test(tree)) {
    const files = [...new Set(rest.filter((file) => file.length > 0))];
    return { kind: 'conflict', files, detail: `merge conflict in ${files.join(', ') || 'the tree'}` };
  }
  if (/unrelated histories/.test(result.stderr)) {
    return {
      kind: 'conflict',
      files: [],
      detail: 'the pull request has no history in common with the target',
    };
  }
  throw new Error(`git merge-tree failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 500)}`);
}

async function mergeCommit(repo: RepoAccess, tip: Tip, pr: PullRequestAtSha): Promise<ApplyResult> {
  const merged = await trialMerge(repo, tip.sha, pr.headSha);
  if (merged.kind === 'conflict') return merged;
  const head = await readCommit(repo, pr.headSha);
  const title = pr.commitMessage?.title ?? `Merge pull request #${pr.number}`;
  const message = `${title}\n\n${pr.commitMessage?.body ?? subjectOf(head.message)}\n`;
  const time = Math.max(tip.time, head.committer.time);
  const sha = await commitTree(repo, merged.tree, [tip.sha, pr.headSha], message, fixedDateEnv(time));
  return { kind: 'applied', sha, tree: merged.tree, time };
}

async function squash(repo: RepoAccess, tip: Tip, pr: PullRequestAtSha): Promise<ApplyResult> {
  const merged = await trialMerge(repo, tip.sha, pr.headSha);
  if (merged.kind === 'conflict') return merged;
  if (merged.tree === tip.tree) return { kind: 'applied', ...tip };
  const head = await readCommit(repo, pr.headSha);
  const subjects = await Promise.all(
    (await listCommits(repo, pr.headSha, [tip.sha])).map(async (sha) =>
      subjectOf((await readCommit(repo, sha)).message),
    ),
  );
  const listed = subjects.length > 1 ? `\n${subjects.map((s) => `* ${s}`).join('\n\n')}\n` : '';
  const body = pr.commitMessage?.body !== undefined ? `\n${pr.commitMessage.body}\n` : listed;
  const message = `${pr.commitMessage?.title ?? `${subjectOf(head.message)} (#${pr.number})`}\n${body}`;
  const time = Math.max(tip.time, head.committer.time);
  const env = {
    ...fixedDateEnv(time),
    GIT_AUTHOR_NAME: head.author.name,
    GIT_AUTHOR_EMAIL: head.author.email,
  };
  const sha = await commitTree(repo, merged.tree, [tip.sha], message, env);
  return { kind: 'applied', sha, tree: merged.tree, time };
}

async function rebase(
  repo: RepoAccess,
  tip: Tip,
  pr: PullRequestAtSha,
  exclude: string[],
): Promise<ApplyResult> {
  let current = tip;
  for (const sha of await listCommits(repo, pr.headSha, [tip.sha, ...exclude])) {
    const commit = await readCommit(repo, sha);
    const replayed = await replay(repo, current, commit);
    if (replayed.kind === 'conflict') {
      return {
        ...replayed,
        detail: `${replayed.detail} (replaying ${sha.slice(0, 12)} ${subjectOf(commit.message)})`,
      };
    }
    if (replayed.kind === 'empty') continue;
    const time = Math.max(current.time, commit.committer.time);
    const env = {
      ...fixedDateEnv(time),
      GIT_AUTHOR_NAME: commit.author.name,
      GIT_AUTHOR_EMAIL: commit.author.email,
      GIT_AUTHOR_DATE: `@${commit.author.time} ${commit.author.timezone}`,
    };
    const newSha = await commitTree(repo, replayed.tree, [current.sha], commit.message, env);
    current = { sha: newSha, tree: replayed.tree, time };
  }
  return { kind: 'applied', ...current };
}

type Replay =
  { kind: 'tree'; tree: string } | { kind: 'empty' } | { kind: 'conflict'; detail: string; files: string[] };

/**
 * Cherry-picks `commit` onto `onto` in memory. merge-tree picks the merge base itself, so both sides
 * are re-parented onto a throwaway root commit holding the parent's tree: that root is then the only
 * merge base, which makes the merge exactly base = parent, ours = onto, theirs = commit.
 * A commit that becomes empty is dropped, as `git rebase` does; one that was empty is kept.
 */
async function replay(repo: RepoAccess, onto: Tip, commit: Commit): Promise<Replay> {
  const parentSha = commit.parents[0];
  if (parentSha === onto.sha) return { kind: 'tree', tree: commit.tree };
  const parentTree = parentSha ? (await readCommit(repo, parentSha)).tree : await emptyTree(repo);
  const env = fixedDateEnv(0);
  const root = await commitTree(repo, parentTree, [], 'railyard replay base\n', env);
  const [ours, theirs] = await Promise.all([
    commitTree(repo, onto.tree, [root], 'railyard replay ours\n', env),
    commitTree(repo, commit.tree, [root], 'railyard replay theirs\n', env),
  ]);
  const merged = await trialMerge(repo, ours, theirs);
  if (merged.kind === 'conflict') return merged;
  if (merged.tree === onto.tree && commit.tree !== parentTree) return { kind: 'empty' };
  return { kind: 'tree', tree: merged.tree };
}

async function commitTree(
  repo: RepoAccess,
  tree: string,
  parents: string[],
  message: string,
  env: Record<string, string>,
): Promise<string> {
  const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])];
  return (await expectSuccess(repo.git, args, { dir: repo.dir, env, input: message })).trim();
}

async function emptyTree(repo: RepoAccess): Promise<string> {
  return (await expectSuccess(repo.git, ['mktree'], { dir: repo.dir, input: '' })).trim();
}
