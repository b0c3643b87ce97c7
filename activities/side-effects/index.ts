/**
 * performSideEffects: the one activity the queue workflow starts per decision for everything that
 * decision changes outside it (types.ts): the event-log append, the PR workflows' notices and details
 * refreshes, the deletion of finished runs' test branches. One activity instead of one per effect and
 * PR, and a local one (workflows/queue/side-effects.ts): a merged PR costs the queue's history a few
 * marker events, not a dozen activities.
 *
 * Invariants:
 * - Order where it matters: the append first (the log and the read projection hold a transition
 *   before its PR workflow shows it); then each submission's notices and refreshes in the order given
 *   (a refresh applies only after the notice it follows), submissions and branch deletions side by side.
 *   A submission's consecutive notice deliveries go as one (one signal, all their notices in order).
 * - Each effect is tried whatever happened to the others, and a failure is reported, not thrown: one
 *   failing effect (PostgreSQL down for the append, a host refusing a deletion) loses none of the
 *   others and holds none of them up; the workflow tries the failed ones again
 *   (workflows/queue/side-effects.ts). The call itself fails only when its worker does.
 * - Each effect is idempotent (the log per submission and seq, the PR workflow per seq, a deleted
 *   branch stays deleted), so a call made again after its worker died (the queue's workflow task is
 *   retried elsewhere and the local activity with it) costs duplicates that change nothing. Run as a
 *   regular activity (tests, or a caller that wants it), it heartbeats the keys done and an attempt
 *   skips the keys the previous attempt reported.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AppendResult } from '../events/append';
import type { AppendTransitionsInput } from '../../events/types';
import type {
  PrDetailsRefresh,
  PrTransitionNotice,
  PullRequestWorkflowInput,
  RepositoryKey,
} from '../../contract';
import type { SideEffect, SideEffectsInput, SideEffectsResult } from './types';

export interface SideEffectDeps {
  appendTransitions(input: AppendTransitionsInput): Promise<AppendResult>;
  notifyPullRequest(input: {
    workflow: PullRequestWorkflowInput;
    notices: PrTransitionNotice[];
  }): Promise<void>;
  refreshPullRequestDetails(input: {
    workflow: PullRequestWorkflowInput;
    refresh: PrDetailsRefresh;
  }): Promise<void>;
  deleteTestBranch(input: {
    repo: RepositoryKey;
    branchName: string;
    testBranchPrefix?: string | null;
  }): Promise<void>;
}

/** Well inside the activity's heartbeat timeout (workflows/queue/side-effects.ts). */
const HEARTBEAT_MS = 1_000;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The activity context, or null when a test calls the function directly. */
function currentContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}

export function createSideEffectActivities(deps: SideEffectDeps) {
  function perform(effect: SideEffect): Promise<unknown> {
    switch (effect.kind) {
      case 'appendTransitions': {
        const { kind: _kind, key: _key, ...input } = effect;
        return deps.appendTransitions(input);
      }
      case 'notifyPullRequest':
        return deps.notifyPullRequest({ workflow: effect.workflow, notices: effect.notices });
      case 'refreshPullRequestDetails':
        return deps.refreshPullRequestDetails({ workflow: effect.workflow, refresh: effect.refresh });
      case 'deleteTestBranch':
        return deps.deleteTestBranch({
          repo: effect.repo,
          branchName: effect.branchName,
          ...(effect.testBranchPrefix ? { testBranchPrefix: effect.testBranchPrefix } : {}),
        });
    }
  }

  /** The effects that run one after another: each submission's, in the order given; others alone. */
  function chainsOf(effects: SideEffect[]): SideEffect[][] {
    const chains = new Map<string, SideEffect[]>();
    for (const e of effects) {
      const chain =
        e.kind === 'notifyPullRequest' || e.kind === 'refreshPullRequestDetails'
          ? `submission:${e.workflow.submissionId}`
          : `effect:${e.key}`;
      chains.set(chain, [...(chains.get(chain) ?? []), e]);
    }
    return [...chains.values()];
  }

  /**
   * A chain's effects in the groups performed as one: a submission's consecutive notice deliveries
   * (its `tests_passed` and `merged`, say) go in one signal, one workflow task of its PR workflow.
   */
  function deliveriesOf(chain: SideEffect[]): SideEffect[][] {
    const groups: SideEffect[][] = [];
    for (const e of chain) {
      const last = groups[groups.length - 1];
      if (e.kind === 'notifyPullRequest' && last?.[0]?.kind === 'notifyPullRequest') last.push(e);
      else groups.push([e]);
    }
    return groups;
  }

  /** One effect for a group: its notices in one delivery, in the order given. */
  function oneDelivery(group: SideEffect[]): SideEffect {
    const first = group[0]!;
    if (group.length === 1 || first.kind !== 'notifyPullRequest') return first;
    return { ...first, notices: group.flatMap((e) => (e.kind === 'notifyPullRequest' ? e.notices : [])) };
  }

  return {
    async performSideEffects(input: SideEffectsInput): Promise<SideEffectsResult> {
      const ctx = currentContext();
      const earlier = ctx?.info.heartbeatDetails as string[] | undefined;
      const done = new Set<string>(Array.isArray(earlier) ? earlier : []);
      const failed: SideEffectsResult['failed'] = [];
      // A local activity has no heartbeat (nor details to resume from): it is made again whole.
      const beating = ctx !== null && !ctx.info.isLocal;
      const beat = () => {
        if (beating) ctx.heartbeat([...done]);
      };
      const timer = beating ? setInterval(beat, HEARTBEAT_MS) : null;

      let appended: AppendResult | undefined;
      /** Performs `group` as one effect (a submission's notices in one delivery); false when it failed. */
      const attempt = async (group: SideEffect[]): Promise<boolean> => {
        const left = group.filter((e) => !done.has(e.key));
        if (left.length === 0) return true;
        try {
          const result = await perform(oneDelivery(left));
          if (left[0]!.kind === 'appendTransitions') appended = result as AppendResult;
          for (const e of left) done.add(e.key);
          beat();
          return true;
        } catch (err) {
          const error = messageOf(err);
          // Trying again cannot fix a failure Temporal's rules call non-retryable (an invalid name).
          const retryable = !(err instanceof ApplicationFailure && err.nonRetryable);
          for (const e of left) failed.push({ key: e.key, error, retryable });
          ctx?.log.warn('side effect failed', { keys: left.map((e) => e.key), error, retryable });
          return false;
        }
      };

      try {
        for (const e of input.effects) if (e.kind === 'appendTransitions') await attempt([e]);
        const rest = input.effects.filter((e) => e.kind !== 'appendTransitions');
        await Promise.all(
          chainsOf(rest).map(async (chain) => {
            const groups = deliveriesOf(chain);
            for (const [i, group] of groups.entries()) {
              if (await attempt(group)) continue;
              // A submission's later notices wait for the failed one: tried again after it, in order.
              for (const later of groups.slice(i + 1).flat())
                failed.push({
                  key: later.key,
                  error: `not tried: ${group[0]!.key} failed before it`,
                  retryable: true,
                });
              return;
            }
          }),
        );
      } finally {
        if (timer) clearInterval(timer);
      }
      beat();
      return {
        done: input.effects.map((e) => e.key).filter((k) => done.has(k)),
        failed,
        ...(appended ? { appended } : {}),
      };
    },
  };
}

export type SideEffectActivities = ReturnType<typeof createSideEffectActivities>;
export type { SideEffect, SideEffectsInput, SideEffectsResult } from './types';
