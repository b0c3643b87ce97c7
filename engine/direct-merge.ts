/**
 * Direct merge (`directMergeMode = always`).
 *
 * Rule (trunk-compat §4): a PR that is already up to date with the target tip (its reported base is
 * the tip the engine holds), is ready, and has an idle lane (nothing ahead of it that it depends on:
 * in single mode, nothing else in the queue ahead of it) merges without a test run
 * (`MERGE_GRAPH_DIRECT_MERGE`): its own checks, which made it ready, ran on exactly that tree.
 * Invariants: it never bypasses a PR it depends on, so the target only moves to the PR's own tested
 * tree; it waits for any merge in flight (one merge at a time); a PR behind it may be tested on top
 * of it meanwhile, as on any passed group.
 */
import { type Draft, command } from './draft';
import { createGroup } from './groups';
import { type Entry } from './model';

export function mayMergeDirectly(d: Draft, entry: Entry, dependencies: readonly Entry[]): boolean {
  const { state } = d;
  return (
    state.config.directMergeMode === 'always' &&
    state.merge === null &&
    state.tipSha !== null &&
    entry.baseSha === state.tipSha &&
    dependencies.length === 0
  );
}

export function mergeDirectly(d: Draft, entry: Entry): void {
  createGroup(d, [entry], { bisection: false, direct: true, status: 'passed' });
  const mergeId = d.ctx.newId();
  d.state.merge = { mergeId, prs: [entry.pr], via: 'direct', runId: null };
  command(d, {
    type: 'merge',
    mergeId,
    prs: [entry.pr],
    via: 'direct',
    runId: null,
    method: d.state.config.mergeMethod,
    expectedTipSha: d.state.tipSha,
  });
}
