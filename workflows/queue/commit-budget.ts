/**
 * A budget on the commit messages one queue carries, so that its continue-as-new input stays under
 * Temporal's 2 MB payload limit whatever its submitters send. A submit may carry a commit title of 256
 * and a body of 8,000 characters (api/schemas/merge-queue.ts), and the queue keeps it with the PR
 * (`PrMeta.commitMessage`) until the PR leaves, or with the request while it is read or deferred
 * (ADR 0027): 1,000 queued PRs with long bodies of text that compresses badly would carry tens of MB.
 *
 * Rule: a submit whose commit title and body would take the queue's total past
 * COMMIT_MESSAGES_BUDGET_BYTES is refused by the submit's validator (`invalid`: the API's 400, with a
 * sentence naming commitTitle/commitBody and what to do); nothing is recorded, so nothing is lost and no
 * history changes (a validator's refusal never reaches one). The total is counted as carried, before
 * compression (carry-codec.ts `carriedBytes`: text full of emoji takes three times its UTF-8 bytes there), over the
 * queued PRs' messages (the description's titles included, each at
 * most 256 characters) and the requests being read or deferred; the PR's own earlier message does not
 * count (a resubmission replaces it). Pure and deterministic: a submit without a commit title or body
 * (every recorded history) is never refused.
 */
import type { CommitMessage } from '../../contract';
import type { Carried, SubmissionRequest } from './carried';
import { carriedBytes } from './carry-codec';

export const COMMIT_MESSAGES_BUDGET_BYTES = 256 * 1024;

const size = (message: CommitMessage | undefined): number =>
  message === undefined
    ? 0
    : (message.title === undefined ? 0 : carriedBytes(message.title)) +
      (message.body === undefined ? 0 : carriedBytes(message.body));

/** The bytes of commit messages the queue holds for PRs other than `pr`. */
export function heldCommitMessageBytes(
  c: Pick<Carried, 'prs' | 'deferredSubmissions'>,
  requests: Iterable<SubmissionRequest>,
  pr: number,
): number {
  let held = 0;
  // A request stays pending until its PR's first transition is delivered, after the PR is queued with
  // the same submission id: counted once, as queued.
  const counted = new Set<string>();
  for (const [n, meta] of Object.entries(c.prs)) {
    counted.add(meta.submissionId);
    if (Number(n) !== pr) held += size(meta.commitMessage);
  }
  for (const request of [...requests, ...(c.deferredSubmissions ?? [])]) {
    if (request.pr === pr || counted.has(request.submissionId)) continue;
    counted.add(request.submissionId);
    held += size(request.commitMessage);
  }
  return held;
}

/** Why a submit with `message` is refused, or null when it fits the queue's budget. */
export function commitMessageRefusal(
  c: Pick<Carried, 'prs' | 'deferredSubmissions'>,
  requests: Iterable<SubmissionRequest>,
  pr: number,
  message: CommitMessage | undefined,
): string | null {
  const adding = size(message);
  if (adding === 0) return null;
  const held = heldCommitMessageBytes(c, requests, pr);
  if (held + adding <= COMMIT_MESSAGES_BUDGET_BYTES) return null;
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  return (
    `Fields 'commitTitle' and 'commitBody' would take this queue's commit messages past its limit of ` +
    `${COMMIT_MESSAGES_BUDGET_BYTES / 1024} KiB (it holds ${kib(held)} KiB, these are ${kib(adding)} KiB); ` +
    `submit with a shorter commitBody, or again once pull requests ahead have left the queue.`
  );
}
