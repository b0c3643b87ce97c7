/**
 * The landing check (docs/git-host.md, "Landing proof"): the landings of the last day compared
 * again on their host. A landing holds while its commit is still on the target branch, the host still
 * resolves it to the tree read back right after the landing, and that tree was the tested one (or it
 * was a parallel lane's rebase). Anything else means the branch was changed outside the queue: the
 * landing is recorded `changed` with a sentence (the API's `railyard_landings_changed` gauge counts
 * them; alert LandingChanged in docs/operations.md) and an error line is logged.
 *
 * Rules: at most MAX_CHECKED landings per run, newest first; a landing whose host cannot be asked
 * now (an error) is left for the next run, not recorded; the check writes only to the landings table
 * (and prunes the landings older than 30 days).
 */
import { Context, log } from '@temporalio/activity';
import type { Pool } from '../stores/db';
import { repositoryLabel } from '../contract';
import type { GitHost } from '../git/git-host';
import {
  landingsToCheck,
  pruneLandings,
  recordLandingCheck,
  type Landing,
  type LandingCheck,
} from '../events/store/landings';

export const MAX_CHECKED = 500;

export interface LandingCheckSummary {
  checked: number;
  held: number;
  changed: number;
  /** Landings whose host could not be asked this time. */
  skipped: number;
}

const short = (id: string) => id.slice(0, 12);

/** What the host says of one landing now. */
export async function checkLanding(gitHost: GitHost, l: Landing): Promise<LandingCheck> {
  const where = `${repositoryLabel(l.repo)}@${l.targetBranch} (#${l.prNumber})`;
  if (!l.rebased && l.testedTree !== null && l.landedTree !== null && l.landedTree !== l.testedTree)
    return {
      state: 'changed',
      detail: `${where}: right after landing ${short(l.landedSha)} the branch held tree ${short(l.landedTree)}, not the tested tree ${short(l.testedTree)}.`,
    };
  const tree = await gitHost.commitTree(l.repo, l.landedSha);
  if (tree === null)
    return {
      state: 'changed',
      detail: `${where}: the landed commit ${short(l.landedSha)} is gone from the host.`,
    };
  if (l.landedTree !== null && tree !== l.landedTree)
    return {
      state: 'changed',
      detail: `${where}: the landed commit ${short(l.landedSha)} now holds tree ${short(tree)} on the host, not the landed tree ${short(l.landedTree)}.`,
    };
  if (!(await gitHost.branchContains(l.repo, l.targetBranch, l.landedSha)))
    return {
      state: 'changed',
      detail: `${where}: the landed commit ${short(l.landedSha)} is no longer on ${l.targetBranch} (the branch was rewritten outside the queue).`,
    };
  return { state: 'held' };
}

type Say = (level: 'warn' | 'error', message: string, meta: Record<string, unknown>) => void;

/** The activity logger (a test passes its own: outside an activity there is none). */
const activityLog: Say = (level, message, meta) => {
  if (level === 'warn') log.warn(message, meta);
  else log.error(message, meta);
};

export function createLandingCheckActivities(deps: {
  pool: Pool;
  gitHost: GitHost;
  now?: () => Date;
  say?: Say;
}) {
  const now = deps.now ?? (() => new Date());
  const say = deps.say ?? activityLog;
  async function checkRecentLandings(): Promise<LandingCheckSummary> {
    const at = now();
    const summary: LandingCheckSummary = { checked: 0, held: 0, changed: 0, skipped: 0 };
    for (const landing of await landingsToCheck(deps.pool, at, MAX_CHECKED)) {
      heartbeat();
      let check: LandingCheck;
      try {
        check = await checkLanding(deps.gitHost, landing);
      } catch (err) {
        summary.skipped += 1;
        say('warn', 'landing check: the host could not be asked; next run', {
          repo: repositoryLabel(landing.repo),
          error: err instanceof Error ? err.message : String(err),
        });
        continue;
      }
      summary.checked += 1;
      summary[check.state] += 1;
      if (check.state === 'changed')
        say('error', 'landing changed outside the queue', { detail: check.detail });
      await recordLandingCheck(deps.pool, landing, check, at);
    }
    await pruneLandings(deps.pool, at);
    return summary;
  }
  return { checkRecentLandings };
}

/** Heartbeats when running as an activity; a plain call (a test) has no context. */
function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // not in an activity
  }
}

export type LandingCheckActivities = ReturnType<typeof createLandingCheckActivities>;
