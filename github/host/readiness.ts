/**
 * Whether GitHub would merge an open PR now, and if not, why, as a sentence for its record and live
 * comment (`blockedBy`). For `blocked`, the required checks of its base are compared with what its head
 * reported, so a check that will never run is named; then the reviews the branch rules want are
 * compared with the PR's (review-readiness.ts). Reads are bounded by those readers.
 */
import type { PullWire, Target } from './remote';
import { readCommitChecks } from './checks';
import { requiredFromProtection } from './required-checks';
import { reviewBlockedBy } from './review-readiness';
import { code } from '../presentation/markdown';

/** GitHub would let the PR merge now (its reviews, its own required checks, no draft). */
export function readyOnGitHub(wire: PullWire): boolean {
  if (wire.draft) return false;
  if (wire.mergeable !== true) return false;
  return ['clean', 'unstable', 'has_hooks', 'behind'].includes(wire.mergeable_state);
}

/** Why GitHub will not merge `wire` yet. */
export async function blockedBy(t: Target, wire: PullWire): Promise<string> {
  if (wire.draft) return 'it is a draft: mark it ready for review';
  if (wire.mergeable === null) return 'GitHub is still computing whether it can merge';
  if (wire.mergeable_state === 'blocked') {
    const repo = { owner: t.repo.owner, name: t.repo.name };
    const required = await requiredFromProtection(t.client, repo, wire.base.ref);
    if (required.kind === 'found') {
      const reports = await readCommitChecks(t.client, repo, wire.head.sha);
      const passed = new Set(reports.filter((r) => r.state === 'success').map((r) => r.context));
      const missing = required.contexts.filter((c) => !passed.has(c));
      const silent = missing.filter((c) => !reports.some((r) => r.context === c));
      if (missing.length > 0)
        return `it waits for the required check${missing.length > 1 ? 's' : ''} ${quoted(missing)} on its head commit${
          silent.length > 0
            ? ` (${quoted(silent)} ha${silent.length > 1 ? 've' : 's'} not reported at all)`
            : ''
        }`;
    }
    const reviews = await reviewBlockedBy(t.client, repo, wire.number, wire.base.ref);
    return (
      reviews ?? 'GitHub blocks it: the branch rules (reviews by code owners, conversations) are not met yet'
    );
  }
  return `GitHub does not allow it to merge yet (${wire.mergeable_state})`;
}

/** Check names (the repository's settings) as code spans: nothing in them renders in a comment. */
const quoted = (names: string[]) => names.map((n) => code(n, 100)).join(', ');
