/**
 * CommandExecutor (glossary: command executor): turns engine commands into activities and child workflows, and their outcomes back
 * into engine events. Each command is started without blocking the main loop. PR notifications are
 * not commands it runs: the drain loop (runtime.ts) hands `notifyPr` to the PR notifier.
 *
 * - startTestRun: build the test branch (target tip, or a stacked run's head, plus the PRs; with
 *   createPrsForTestingBranches also a draft PR from it, closed when the branch is deleted), then test
 *   it: the `statuses` runner waits for CI's commit statuses (queue signal, status-verdict.ts); for the
 *   `command` runner the build activity itself starts the test-run workflow on the branch it built (not
 *   a child of this workflow: continue-as-new does not end it, and its start and end cost this history
 *   nothing, issue 25; test-run-child.ts). Its result may then come before the build's completion
 *   (run-result.ts). A run cancelled while building, or whose build gave up, has that workflow cancelled.
 * - cancelTestRun: cancel the test-run workflow; its branch is deleted once the engine drops the run.
 * - merge: merge-command.ts.
 */
import { log } from '@temporalio/workflow';
import type { EngineCommand, NotifyPr } from '../../engine';
import { boundedNames, MAX_AVOID_SHAS, MAX_DETAIL_NAMES, testRunWorkflowId } from '../../contract';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import type { HostReader } from './host-reader';
import { runMerge } from './merge-command';
import { prsToApply } from './prs-to-apply';
import { takeEarlyRunResult } from './run-result';
import type { SideEffects } from './side-effects';
import { judgeStatuses, requiredOf } from './status-verdict';
import { cancelTestRunWorkflow, startCommandRun, testRunStart } from './test-run-child';

/**
 * The heads of the runs the queue carries, for the build to avoid (issue 28): a flaky retry or a
 * restart composes the commit an earlier run tested, whose checks on GitHub are that run's. Bounded as
 * the carried runs are (MAX_FINISHED_RUNS and the live ones), the newest kept past MAX_AVOID_SHAS.
 */
function avoidShasOf(runs: readonly RunMeta[]): { avoidShas?: string[] } {
  const shas = [...new Set(runs.map((r) => r.headSha).filter((s): s is string => s !== null))];
  return shas.length > 0 ? { avoidShas: shas.slice(-MAX_AVOID_SHAS) } : {};
}

/** The engine commands this runs: all but `notifyPr`. */
export type ExecutedCommand = Exclude<EngineCommand, NotifyPr>;

export class CommandExecutor {
  constructor(
    private readonly ctx: QueueContext,
    private readonly hosts: HostReader,
    private readonly effects: SideEffects,
  ) {}

  execute(cmd: ExecutedCommand): void {
    switch (cmd.type) {
      case 'startTestRun':
        return this.startTestRun(cmd);
      case 'cancelTestRun':
        return this.cancelTestRun(cmd.runId, cmd.reason);
      case 'merge':
        return runMerge(this.ctx, cmd);
    }
  }

  private startTestRun(cmd: Extract<EngineCommand, { type: 'startTestRun' }>): void {
    const { carried: c, key } = this.ctx;
    const stacked = cmd.stackedOnRunId
      ? c.runs.find((r) => r.runId === cmd.stackedOnRunId && r.headSha)
      : undefined;
    const run: RunMeta = {
      runId: cmd.runId,
      branchName: null,
      headSha: null,
      baseSha: null,
      createdAt: Date.now(),
      prs: cmd.prs,
      ahead: cmd.ahead,
      bisection: cmd.bisection,
      status: 'building',
      runner: (c.runner.requiredStatuses ?? []).length > 0 ? 'statuses' : 'command',
      child: null,
      childStarted: false,
      statuses: [],
      titles: Object.fromEntries(cmd.prs.map((n) => [String(n), c.prs[String(n)]?.title ?? ''])),
      cleaned: false,
    };
    c.runs.push(run);
    const apply = stacked ? cmd.prs : [...cmd.ahead, ...cmd.prs];
    this.ctx.track(
      async () => {
        const built = await this.ctx.git.buildTestRun({
          organisationId: key.organisationId,
          repo: key.repo,
          targetBranch: key.targetBranch,
          runId: cmd.runId,
          branchPr: cmd.prs[0] ?? 0,
          buildOnSha: stacked?.headSha ?? cmd.baseSha,
          prs: prsToApply(this.ctx, apply),
          // Stacked: the PRs ahead are in buildOnSha; a conflict names the one it clashes with.
          ...(stacked && cmd.ahead.length > 0 ? { underneath: prsToApply(this.ctx, cmd.ahead) } : {}),
          mergeMethod: c.engine.config.mergeMethod,
          queueNamesChecks: run.runner === 'statuses',
          testBranchPrefix: c.runner.testBranchPrefix ?? null,
          // Draft-PR testing mode: `pull_request` CI runs on a draft PR from the branch.
          ...(c.runner.createPrsForTestingBranches ? { testPullRequest: { prs: cmd.prs } } : {}),
          ...(run.runner === 'command' ? { testRun: testRunStart(this.ctx, run, cmd.onlyTests) } : {}),
          ...avoidShasOf(c.runs),
        });
        switch (built.kind) {
          case 'built':
            Object.assign(run, {
              branchName: built.branchName,
              headSha: built.headSha,
              baseSha: built.baseSha,
              ...(built.headTree ? { headTree: built.headTree } : {}),
            });
            if (built.testRunStarted) {
              run.child = testRunWorkflowId(key, run.runId);
              run.childStarted = true;
            }
            if (run.status !== 'building') {
              // Cancelled while building. Dropped too: cleanUpFinishedRuns had no branch name to delete
              // then, so the branch just pushed is deleted now (else it would outlive the run).
              if (run.cleaned) this.deleteTestBranch(run);
              // The build started its test run meanwhile: nobody wants its result.
              if (run.child && run.childStarted) await cancelTestRunWorkflow(run.child);
              return;
            }
            if (built.checks?.kind === 'problem') {
              run.status = 'failed';
              log.warn('test run cannot start', { runId: run.runId, detail: built.checks.detail });
              this.ctx.push({
                type: 'testRunFailedToStart',
                runId: run.runId,
                reason: built.checks.reason,
                culpritPr: null,
              });
              return;
            }
            if (built.checks?.kind === 'required') {
              // The host's CI tests the pushed branch; its checks decide the run.
              run.runner = 'statuses';
              run.required = { contexts: built.checks.contexts, source: built.checks.source };
            }
            // The host's CI should start its checks from now on (stall-watch.ts).
            if (built.checks) run.pushedAt = Date.now();
            run.status = 'in_progress';
            this.ctx.push({ type: 'testRunStarted', runId: run.runId, baseSha: built.baseSha });
            // Its PRs' records (and live comments) name the commit CI now checks: those whose testing
            // notice rode along were told by the build itself (activities/merge-queue/held-testing-notices.ts).
            for (const pr of cmd.prs)
              if (!built.testedOnNoticed?.includes(pr))
                this.ctx.refreshDetails(pr, { branch: built.branchName, sha: built.headSha });
            if (run.runner === 'statuses') {
              judgeStatuses(this.ctx, run);
              // CI may have reported before the run knew its commit: read what the host holds.
              if (built.checks) this.hosts.readChecks(run);
            } else if (built.testRunStarted) takeEarlyRunResult(this.ctx, run);
            // A build that started no run (an activity without a starter): the queue starts it.
            else await startCommandRun(this.ctx, run);
            return;
          case 'conflict': {
            // Its PRs' records name the PR that did not apply, the files, what it was applied on, and
            // which of those PRs it clashed with when the host could tell.
            const order = [...cmd.ahead, ...cmd.prs];
            const at = order.indexOf(built.prNumber);
            run.detail = {
              kind: 'conflict',
              pr: built.prNumber,
              files: boundedNames(built.files ?? []).names,
              onTopOf: at > 0 ? order.slice(0, at) : [],
              ...(built.clashesWith ? { clashesWith: built.clashesWith.slice(0, MAX_DETAIL_NAMES) } : {}),
            };
            this.ctx.push({
              type: 'testRunFailedToStart',
              runId: run.runId,
              reason: 'START_TEST_RUN_MERGE_CONFLICT',
              culpritPr: built.prNumber,
            });
            return;
          }
          case 'pr_moved':
            this.ctx.push({ type: 'cancelled', pr: built.prNumber, reason: 'PR_PUSHED_TO' });
            return;
          case 'pr_closed':
            this.ctx.push({ type: 'cancelled', pr: built.prNumber, reason: 'PR_CLOSED' });
            return;
          case 'no_target':
            this.ctx.push({
              type: 'testRunFailedToStart',
              runId: run.runId,
              reason: 'START_TEST_RUN_INVALID_EVENT',
              culpritPr: null,
            });
            return;
        }
      },
      () => {
        if (run.status === 'building' || run.status === 'in_progress') run.status = 'failed';
        // An attempt may have started the test run before the build gave up: nobody wants its result.
        if (run.runner === 'command') {
          const workflowId = testRunWorkflowId(key, run.runId);
          this.ctx.track(() => cancelTestRunWorkflow(workflowId));
        }
        this.ctx.push({
          type: 'testRunFailedToStart',
          runId: run.runId,
          reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
          culpritPr: null,
        });
      },
    );
  }

  private cancelTestRun(runId: string, reason: string): void {
    const run = this.ctx.carried.runs.find((r) => r.runId === runId);
    if (!run || run.status === 'succeeded' || run.status === 'failed') return;
    if (reason === 'TEST_RUN_TIMEOUT' && run.runner === 'statuses') {
      const seen = new Set(run.statuses.filter((s) => s.state === 'success').map((s) => s.context));
      const missing = requiredOf(this.ctx, run).filter((ctx) => !seen.has(ctx));
      log.warn('test run timed out waiting for required checks', { runId, missing, sha: run.headSha });
    }
    run.status = 'cancelled';
    const child = run.child;
    if (child && run.childStarted) this.ctx.track(() => cancelTestRunWorkflow(child));
  }

  /** Deletes the test branches of runs the engine no longer tracks. */
  cleanUpFinishedRuns(): void {
    const c = this.ctx.carried;
    const live = new Set(c.engine.groups.map((g) => g.runId));
    for (const run of c.runs) {
      if (live.has(run.runId) || run.cleaned) continue;
      if (run.status === 'building' || run.status === 'in_progress') run.status = 'cancelled';
      run.cleaned = true;
      this.deleteTestBranch(run);
    }
  }

  /** Deletes a run's test branch, if it has one yet (a run still building has none). */
  private deleteTestBranch(run: RunMeta): void {
    // With the decision's other side effects, in one activity (side-effects.ts).
    if (run.branchName)
      this.effects.deleteTestBranch(run.branchName, this.ctx.carried.runner.testBranchPrefix);
  }
}
