/**
 * The preflight's throw-away test branch on a repository railyard writes with git (the local host):
 * one commit on the target's tip with the tip's tree, under `<prefix>preflight/<id>`.
 *
 * Rules: the commit is new (its own sha), so what CI reported for the target's tip never counts as a
 * check started on the branch; its tree is the tip's, so CI tests exactly what the target holds. The
 * name must be under the test-branch prefix (checkTestBranch). Idempotent: an activity that runs
 * again finds the branch it made (a commit on the same base) and answers it.
 */
import { readCommit, readRef, treeOf, type RepoAccess } from './commits';
import { expectSuccess } from './git-cli';
import type { PreflightBranchInput } from './git-host';
import { checkTestBranch } from './input-checks';
import * as names from './names';
import { createRefOnce } from './refs';

/** The message of the preflight's commit (also on GitHub, github/host/preflight-branch.ts). */
export const PREFLIGHT_COMMIT_MESSAGE =
  'railyard preflight: do the required checks start on a test branch?\n\nA throw-away commit; railyard deletes its branch when the preflight ends.\n';

/** `<prefix>preflight/<id>`: the name of a preflight's branch. */
export function preflightBranchName(prefix: string, id: string): string {
  return names.assertValid('preflight branch', names.checkBranchName(`${prefix}preflight/${id}`));
}

/** Checks the input as every host does before writing. */
export function checkPreflightInput(input: PreflightBranchInput, hostPrefix: string): void {
  names.assertValid('baseSha', names.checkSha(input.baseSha));
  checkTestBranch(input.branchName, input.branchPrefix ?? hostPrefix);
  if (!input.branchName.slice((input.branchPrefix ?? hostPrefix).length).startsWith('preflight/'))
    throw new names.InvalidGitNameError('preflight branch', 'must be <prefix>preflight/<id>');
}

export async function writePreflightBranch(
  access: RepoAccess,
  input: PreflightBranchInput,
): Promise<{ sha: string }> {
  const ref = names.branchRef(input.branchName);
  const held = await readRef(access, ref);
  if (held !== null && (await readCommit(access, held)).parents.join(' ') === input.baseSha)
    return { sha: held };
  const tree = await treeOf(access, input.baseSha);
  if (tree === null) throw new Error(`base ${input.baseSha} is not a commit of this repository`);
  const sha = (
    await expectSuccess(access.git, ['commit-tree', tree, '-p', input.baseSha], {
      dir: access.dir,
      input: PREFLIGHT_COMMIT_MESSAGE,
    })
  ).trim();
  await createRefOnce(access, ref, sha);
  return { sha };
}
