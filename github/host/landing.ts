/**
 * Landing on GitHub, in the queue's landing mode (docs/github.md, "Branch protection and landing
 * modes"):
 * - `push`: `--force-with-lease` from the tip the run was built on, so the tested commit is what lands
 *   and a racing push is detected (`moved`), never overwritten; GitHub's protection refusals
 *   (GH006/GH013) are `rejected` with a sentence saying what to configure. A pushed squash or rebase
 *   is not a merge GitHub can see, so those PRs are closed with a comment naming the landed commit.
 * - `api`: the target must still be where the run was built, then each PR is merged through
 *   `PUT /pulls/{n}/merge` with its tested head sha; afterwards the new tip's tree is compared with the
 *   tested tree and a mismatch is reported as a warning, never hidden. A batch refused part-way reports
 *   the PRs that did merge.
 * Both are idempotent: a target already at (or past) the landed commit, or a PR already merged, counts
 * as landed.
 */
import { commitExists, isAncestor } from '../../git/commits';
import { expectSuccess } from '../../git/git-cli';
import type { AdvanceTargetInput, AdvanceTargetResult, MergeMethod } from '../../git/git-host';
import type { GitHubRemote, Target } from './remote';
import * as names from '../../git/names';
import { GitHubApiError } from '../app/rest-client';
import { repositoryLabel } from '../../contract';

/** GitHub's name for each merge method. */
const API_METHOD: Record<MergeMethod, 'merge' | 'squash' | 'rebase'> = {
  merge_commit: 'merge',
  squash: 'squash',
  rebase: 'rebase',
};

export interface GitHubLanding {
  advance(t: Target, input: AdvanceTargetInput): Promise<AdvanceTargetResult>;
}

export function createGitHubLanding(remote: GitHubRemote): GitHubLanding {
  const { fetch, ensureCommit, readPull, tipOf, push, checkHeads } = remote;

  async function landByPush(t: Target, input: AdvanceTargetInput): Promise<AdvanceTargetResult> {
    const { expectedSha, newSha, targetBranch } = input;
    const current = await tipOf(t, targetBranch);
    if (current === newSha) return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
    if (current !== expectedSha) {
      if (current !== null) {
        const access = await fetch(t, [`+${names.branchRef(targetBranch)}:${names.branchRef(targetBranch)}`]);
        if ((await commitExists(access, newSha)) && (await isAncestor(access, newSha, current)))
          return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
      }
      return { kind: 'moved', expectedSha, actualSha: current };
    }
    const heads = await checkHeads(t, input.prs ?? []);
    if (heads.kind === 'pr_closed')
      return { kind: 'pr_closed', prNumber: heads.prNumber, reason: 'PR_CLOSED' };
    if (heads.kind === 'pr_moved') return { ...heads, reason: 'PR_UPDATED_AT_MERGE_TIME' };
    const access = await ensureCommit(t, newSha);
    await ensureCommit(t, expectedSha);
    if (!(await isAncestor(access, expectedSha, newSha)))
      return {
        kind: 'rejected',
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail: `${newSha} does not descend from ${expectedSha}`,
      };
    const ref = names.branchRef(targetBranch);
    const r = await push(t, [
      `--force-with-lease=${ref}:${expectedSha}`,
      '--',
      t.remote.url,
      `${newSha}:${ref}`,
    ]);
    if (r.exitCode === 0) {
      await closeLandedPrs(t, input, newSha);
      return { kind: 'advanced', sha: newSha, alreadyAdvanced: false };
    }
    const said = `${r.stdout}\n${r.stderr}`;
    if (/stale info|fetch first|non-fast-forward/.test(said)) {
      const now = await tipOf(t, targetBranch);
      if (now === newSha) return { kind: 'advanced', sha: newSha, alreadyAdvanced: true };
      return { kind: 'moved', expectedSha, actualSha: now };
    }
    if (/GH006|GH013|protected branch|declined/i.test(said))
      return {
        kind: 'rejected',
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail:
          `GitHub refused the push to ${targetBranch} (${firstRefusal(said)}). With landing mode push the railyard ` +
          `App must be on the bypass list of the rules protecting ${targetBranch}; or set the queue's landing mode to api.`,
      };
    throw new Error(`git push to ${repositoryLabel(t.repo)} failed: ${r.stderr.trim().slice(0, 300)}`);
  }

  /**
   * A pushed squash or rebase leaves GitHub with PRs whose heads it cannot see merged: close them and
   * say where they landed. Best effort: the target already moved, which is what matters.
   */
  async function closeLandedPrs(t: Target, input: AdvanceTargetInput, sha: string): Promise<void> {
    if ((input.mergeMethod ?? 'merge_commit') === 'merge_commit') return;
    for (const pr of input.prs ?? []) {
      try {
        await t.client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...t.params,
          issue_number: pr.number,
          body: `Merged by railyard into \`${input.targetBranch}\` as ${sha} (the commit its test run tested).`,
        });
        await t.client.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...t.params,
          pull_number: pr.number,
          state: 'closed',
        });
      } catch {
        // The PR stays open on GitHub; the queue records it merged either way.
      }
    }
  }

  async function landByApi(t: Target, input: AdvanceTargetInput): Promise<AdvanceTargetResult> {
    const { expectedSha, newSha, targetBranch } = input;
    const prs = input.prs ?? [];
    const method = API_METHOD[input.mergeMethod ?? 'merge_commit'];
    const heads = await checkHeads(t, prs);
    if (heads.kind === 'pr_closed')
      return { kind: 'pr_closed', prNumber: heads.prNumber, reason: 'PR_CLOSED' };
    if (heads.kind === 'pr_moved') return { ...heads, reason: 'PR_UPDATED_AT_MERGE_TIME' };
    const merged = [...heads.merged];
    // Nothing of this landing merged yet: the target must still be where the run was built.
    if (merged.length === 0) {
      const current = await tipOf(t, targetBranch);
      if (current !== expectedSha) return { kind: 'moved', expectedSha, actualSha: current };
    }
    let tip: string | null = null;
    for (const pr of prs) {
      if (merged.includes(pr.number)) continue;
      try {
        const r = await t.client.request<{ sha: string; merged: boolean }>(
          'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
          {
            ...t.params,
            pull_number: pr.number,
            sha: pr.headSha,
            merge_method: method,
            // The PR's own title and body (contract/commit-message.ts); GitHub's template otherwise.
            ...(method !== 'rebase' && pr.commitMessage?.title
              ? { commit_title: pr.commitMessage.title }
              : {}),
            ...(method !== 'rebase' && pr.commitMessage?.body
              ? { commit_message: pr.commitMessage.body }
              : {}),
          },
        );
        tip = r.data.sha;
        merged.push(pr.number);
      } catch (err) {
        if (!(err instanceof GitHubApiError) || ![405, 409, 422, 403].includes(err.status)) throw err;
        // An earlier attempt of this landing whose worker died after sending the merge: GitHub may
        // have merged the PR after this attempt read it open, and now refuses it as not mergeable.
        // Merged with the head the run tested, it is this landing's merge, as checkHeads counts it.
        if (err.status === 405 || err.status === 422) {
          const now = await readPull(t, pr.number);
          if (now?.merged && now.head.sha === pr.headSha) {
            merged.push(pr.number);
            tip = null;
            continue;
          }
        }
        if (err.status === 409)
          return {
            kind: 'pr_moved',
            prNumber: pr.number,
            expectedSha: pr.headSha,
            actualSha: (await readPull(t, pr.number))?.head.sha ?? pr.headSha,
            reason: 'PR_UPDATED_AT_MERGE_TIME',
          };
        const now = merged.length > 0 ? await tipOf(t, targetBranch) : null;
        return {
          kind: 'rejected',
          reason: 'GITHUB_API_MERGE_PR_FAILED',
          detail:
            `GitHub refused to merge #${pr.number} (${err.status}${err.reason ? `: ${err.reason}` : ''}). With landing ` +
            `mode api the PR itself must satisfy ${targetBranch}'s protection (reviews, its own required checks) and ` +
            `the repository must allow the ${method} method.`,
          ...(merged.length > 0 && now !== null
            ? {
                merged: {
                  prs: prs.filter((p) => merged.includes(p.number)).map((p) => p.number),
                  tipSha: now,
                },
              }
            : {}),
        };
      }
    }
    const finalTip = tip ?? (await tipOf(t, targetBranch));
    if (finalTip === null) return { kind: 'moved', expectedSha, actualSha: null };
    const warning = await treeMismatch(t, finalTip, newSha, targetBranch);
    return {
      kind: 'advanced',
      sha: finalTip,
      alreadyAdvanced: tip === null,
      ...(warning ? { warning } : {}),
    };
  }

  /** Null when `landed` has the tested tree; otherwise a sentence for the PR's record. */
  async function treeMismatch(
    t: Target,
    landed: string,
    tested: string,
    branch: string,
  ): Promise<string | null> {
    const access = await fetch(t, [`+${names.branchRef(branch)}:${names.branchRef(branch)}`]);
    await ensureCommit(t, tested);
    const tree = async (sha: string) =>
      (
        await expectSuccess(access.git, ['rev-parse', '--verify', '--end-of-options', `${sha}^{tree}`], {
          dir: access.dir,
        })
      ).trim();
    const [a, b] = await Promise.all([tree(landed), tree(tested)]);
    return a === b
      ? null
      : `GitHub's merge wrote ${landed} to ${branch}, whose tree differs from the tested commit ${tested}: the target holds an untested tree.`;
  }

  return {
    advance: (t, input) => ((input.landing ?? 'push') === 'api' ? landByApi(t, input) : landByPush(t, input)),
  };
}

/**
 * GitHub's own reason (`GH006: Protected branch update failed…`) rather than git's porcelain line for
 * the ref (`! <sha>:<ref> [remote rejected] (pre-receive hook declined)`), which says only that a hook
 * refused.
 */
function firstRefusal(said: string): string {
  const lines = said.split('\n');
  const line =
    [/GH0\d\d/, /protected branch/i, /declined/i]
      .map((pattern) => lines.find((l) => pattern.test(l)))
      .find((l) => l !== undefined) ?? 'refused';
  return line
    .replace(/^remote:\s*/, '')
    .replace(/^error:\s*/, '')
    .trim()
    .slice(0, 200)
    .replace(/[.\s]+$/, '');
}
