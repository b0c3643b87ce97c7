/**
 * CI triggered by `pull_request`, for draft-PR testing mode on fakehub: reports the `test` check on the
 * head of every open PR from a `trunk-merge/` branch (failure when the tree has a file BROKEN), once
 * per head. `pause` holds it (nothing reported, nothing remembered) until `resume`; `stop` ends it.
 */
import type { FakeHub } from './fakehub';
import type { PullRequest } from './fakehub/state';
import type { GitHubQueueHarness } from './github-queue-harness';

export const pullsOf = (hub: FakeHub, g: GitHubQueueHarness): PullRequest[] =>
  hub.state.pullsOf(hub.state.repository(g.repo.owner, g.repo.name)!);

/** railyard's draft PRs from PR `n`'s test branches. */
export const draftsOf = (hub: FakeHub, g: GitHubQueueHarness, n: number): PullRequest[] =>
  pullsOf(hub, g).filter((p) => p.headBranch.startsWith(`trunk-merge/pr-${n}/`));

export interface DraftPrCi {
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export function startDraftPrCi(hub: FakeHub, g: GitHubQueueHarness): DraftPrCi {
  const reported = new Set<string>();
  let running = true;
  let enabled = true;
  const loop = (async () => {
    while (running) {
      if (enabled)
        for (const pr of pullsOf(hub, g)) {
          if (pr.state !== 'open' || !pr.headBranch.startsWith('trunk-merge/')) continue;
          if (reported.has(`${pr.number}@${pr.headSha}`)) continue;
          reported.add(`${pr.number}@${pr.headSha}`);
          const files = g.bareGit('ls-tree', '--name-only', pr.headSha).split('\n');
          hub.setCheckRun(g.repo.owner, g.repo.name, pr.headSha, {
            name: 'test',
            status: 'completed',
            conclusion: files.includes('BROKEN') ? 'failure' : 'success',
          });
        }
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  return {
    pause: () => {
      enabled = false;
    },
    resume: () => {
      enabled = true;
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
