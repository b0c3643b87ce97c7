/**
 * The landed commit's message for one PR (issue 28, docs/git-host.md "Commit title and body"): a title
 * and body chosen per PR, over the queue's template. Sources, first wins for each part: the submit's
 * `commitTitle` / `commitBody`, then Trunk's `merge-commit-title: <title>` line in the PR description
 * (GitHub's PR body; on the local host, the body of the PR head's commit message), then the template.
 *
 * Invariants: a title is one line (line breaks become spaces), trimmed, at most MAX_COMMIT_TITLE
 * characters; a body at most MAX_COMMIT_BODY; an empty part counts as absent. Pure.
 */
import { MAX_COMMIT_BODY, MAX_COMMIT_TITLE, type CommitMessage } from './queue-messages';

const DIRECTIVE = 'merge-commit-title:';
/** GitHub's own limit on a PR description; a longer one (the local host's commit body) is read this far. */
const MAX_DESCRIPTION_READ = 65_536;

/**
 * The title a PR description asks for with a `merge-commit-title:` line, if any (the first one). The
 * description is the PR author's: read line by line in linear time (a backtracking pattern over one
 * 60 KB line of spaces took seconds of the worker's CPU).
 */
export function titleFromDescription(description: string | null | undefined): string | undefined {
  const text = (description ?? '').slice(0, MAX_DESCRIPTION_READ);
  for (const line of text.split(/\r\n|[\n\r\u2028\u2029]/)) {
    const start = line.length - line.replace(/^[ \t]+/, '').length;
    if (line.slice(start, start + DIRECTIVE.length).toLowerCase() === DIRECTIVE)
      return cleanTitle(line.slice(start + DIRECTIVE.length));
  }
  return undefined;
}

/** One trimmed line of at most MAX_COMMIT_TITLE characters; undefined when empty. */
export function cleanTitle(title: string): string | undefined {
  const line = title
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, MAX_COMMIT_TITLE)
    .trim();
  return line.length > 0 ? line : undefined;
}

/** The message parts a PR lands with: the submit's over the description's; undefined when none. */
export function chooseCommitMessage(
  submitted: CommitMessage | undefined,
  descriptionTitle: string | undefined,
): CommitMessage | undefined {
  const title =
    (submitted?.title !== undefined ? cleanTitle(submitted.title) : undefined) ?? descriptionTitle;
  const body = submitted?.body?.slice(0, MAX_COMMIT_BODY).replace(/\s+$/, '') || undefined;
  if (title === undefined && body === undefined) return undefined;
  return { ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}) };
}
