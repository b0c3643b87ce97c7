/**
 * Composes a run's commits: the PRs, in queue order, applied one after the other on the base with the
 * merge method. Before a PR is applied its head ref is compared with the sha the queue decided to
 * test; the queue tests what it saw, and a PR that moved or closed since is reported, not tested.
 *
 * Writes objects only; the caller decides which ref, if any, points at the result. Every PR's head is
 * read with one git process, and with a memo (compose-memo.ts) an application made before (or being
 * made now by another composition) is not made again: every head is still checked, in order, before
 * anything remembered of it is used. Given the heads earlier runs tested (`avoidShas`), a composition
 * equal to one of them gets a new last commit with the same tree (fresh-head.ts), so no two runs of a
 * queue test one commit.
 */
import { commitExists, type RepoAccess } from './commits';
import { stepKey, type ComposeMemo, type RememberedStep } from './compose-memo';
import type { MergeMethod, MergeStep, PullRequestAtSha, PullRequestProblem } from './git-host';
import { clashingPrs } from './clash';
import { freshHead } from './fresh-head';
import { applyPullRequest, readTip, type ApplyResult, type Tip } from './merge-methods';
import { pullRequestRef } from './names';

/** The heads of the PRs before `index` (what a rebase's replay of PR `index` leaves out). */
const headsBefore = (prs: readonly PullRequestAtSha[], index: number) =>
  prs.slice(0, index).map((p) => p.headSha);

export type Composition = { kind: 'composed'; headSha: string; steps: MergeStep[] } | PullRequestProblem;

export type HeadCheck = { kind: 'at_sha' } | { kind: 'moved'; actualSha: string } | { kind: 'closed' };

/**
 * How a PR's head read as `actual` compares with the head it was tested at. On the local host a PR is
 * open while `refs/pull/<n>/head` exists (null: the ref is gone); its head is that ref.
 */
export function headCheckOf(pr: PullRequestAtSha, actual: string | null): HeadCheck {
  if (actual === null) return { kind: 'closed' };
  return actual === pr.headSha ? { kind: 'at_sha' } : { kind: 'moved', actualSha: actual };
}

/** The head of each PR that is open (its ref exists), read with one git process. */
export async function readPullRequestHeads(
  repo: RepoAccess,
  numbers: readonly number[],
): Promise<Map<number, string>> {
  const heads = new Map<number, string>();
  if (numbers.length === 0) return heads;
  // Exact ref names as patterns (a number holds no glob character); `*objectname` peels a tag.
  const format = '%(refname)%00%(objectname)%00%(*objectname)';
  const refs = numbers.map((n) => pullRequestRef(n));
  const result = await repo.git(['for-each-ref', `--format=${format}`, ...refs], { dir: repo.dir });
  if (result.exitCode !== 0)
    throw new Error(
      `git for-each-ref failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 300)}`,
    );
  const byRef = new Map(refs.map((ref, i) => [ref, numbers[i]!]));
  for (const line of result.stdout.split('\n')) {
    const [ref = '', sha = '', peeled = ''] = line.split('\0');
    const n = byRef.get(ref);
    if (n !== undefined) heads.set(n, peeled || sha);
  }
  return heads;
}

export interface ComposeOptions {
  /**
   * A stacked build's PRs already in `baseSha` and the target tip they sit on; only read on a
   * conflict, to name the PRs ahead it clashes with (clash.ts).
   */
  underneath?: { targetSha: string; prs: PullRequestAtSha[] };
  /** Compositions already written by this host (compose-memo.ts); without it every PR is applied. */
  memo?: ComposeMemo;
  /**
   * Heads earlier runs tested (fresh-head.ts): a composition giving one of them has its last commit
   * written again with a later committer date. The memo keeps the pure composition, never the rewrite.
   */
  avoidShas?: readonly string[];
}

export async function composePullRequests(
  repo: RepoAccess,
  baseSha: string,
  prs: PullRequestAtSha[],
  method: MergeMethod,
  options: ComposeOptions = {},
): Promise<Composition> {
  const { underneath, memo, avoidShas } = options;
  const heads = await readPullRequestHeads(
    repo,
    prs.map((p) => p.number),
  );
  // The longest run of applications remembered from the base on, each on the commit the one before wrote.
  let known: RememberedStep[] = [];
  if (memo) {
    let on = baseSha;
    for (const [index, pr] of prs.entries()) {
      const hit = memo.recall(stepKey(repo.dir, on, method, pr, headsBefore(prs, index)));
      if (hit === undefined) break;
      known.push(hit);
      on = hit.sha;
    }
  }
  // A hit is used only if the repository still holds it (its ancestors came with it).
  if (known.length > 0 && !(await commitExists(repo, known[known.length - 1]!.sha))) known = [];
  let tip = baseSha;
  // The facts of `tip` when this composition wrote it or remembered it (merge-methods.ts Tip); read otherwise.
  let written: Tip | null = null;
  const steps: MergeStep[] = [];
  for (const [index, pr] of prs.entries()) {
    const head = headCheckOf(pr, heads.get(pr.number) ?? null);
    switch (head.kind) {
      case 'closed':
        return { kind: 'pr_closed', prNumber: pr.number, reason: 'PR_CLOSED' };
      case 'moved':
        return {
          kind: 'pr_moved',
          prNumber: pr.number,
          expectedSha: pr.headSha,
          actualSha: head.actualSha,
          reason: 'PR_PUSHED_TO',
        };
      case 'at_sha':
        break;
      default: {
        const never: never = head;
        throw new Error(`unexpected head check ${JSON.stringify(never)}`);
      }
    }
    const remembered = known[index];
    if (remembered !== undefined) {
      tip = remembered.sha;
      written = { sha: remembered.sha, tree: remembered.tree, time: remembered.time };
      steps.push({ prNumber: pr.number, sha: remembered.sha });
      continue;
    }
    const earlierHeads = headsBefore(prs, index);
    const on = tip;
    const onTip: Tip | null = written;
    const apply = async (): Promise<ApplyResult> =>
      applyPullRequest(repo, method, onTip ?? (await readTip(repo, on)), pr, earlierHeads);
    const applied = memo
      ? await memo.share(stepKey(repo.dir, on, method, pr, earlierHeads), pr.number, apply)
      : await apply();
    if (applied.kind === 'conflict') {
      const clashesWith = await clashingPrs(repo, {
        targetSha: underneath?.targetSha ?? baseSha,
        ahead: [...(underneath?.prs ?? []), ...prs.slice(0, index)],
        files: applied.files,
      });
      return {
        kind: 'conflict',
        prNumber: pr.number,
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        detail: applied.detail,
        files: applied.files,
        ...(clashesWith ? { clashesWith } : {}),
      };
    }
    tip = applied.sha;
    written = { sha: applied.sha, tree: applied.tree, time: applied.time };
    steps.push({ prNumber: pr.number, sha: tip });
  }
  const last = steps[steps.length - 1];
  if (last && avoidShas && avoidShas.length > 0) {
    const fresh = await freshHead(repo, tip, avoidShas);
    // A new step object: the memo may hold the old one.
    if (fresh !== tip) steps[steps.length - 1] = { prNumber: last.prNumber, sha: fresh };
    tip = fresh;
  }
  return { kind: 'composed', headSha: tip, steps };
}
