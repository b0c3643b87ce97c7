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
 *   nothing, issue 25). Its result may then come before the build's completion (run-result.ts). A run
 *   cancelled while building, or whose build gave up, has that workflow cancelled.
 * - cancelTestRun: cancel the test-run workflow; its branch is deleted once the engine drops the run.
 * - merge: land the tested commit (compare-and-swap), rebase onto a moved tip (parallel lanes), or merge
 *   directly; report mergeDone / mergeFailed.
 */
import {
  ParentClosePolicy,
  getExternalWorkflowHandle,
  log,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { LandingProof, PullRequestToApply, TestRunStart } from '../../activities/merge-queue/types';
import type { EngineCommand, NotifyPr } from '../../engine';
import {
  boundedNames,
  MAX_AVOID_SHAS,
  MAX_DETAIL_NAMES,
  MAX_DETAIL_TEXT,
  queueWorkflowId,
  TEST_RUN_WORKFLOW_TYPE,
  testRunWorkflowId,
  type TestRunWorkflow,
} from '../../contract';
import { git } from './activity-proxies';
import type { RunMeta } from './carried';
import type { QueueContext } from './context';
import type { HostReader } from './host-reader';
import { takeEarlyRunResult } from './run-result';
import type { SideEffects } from './side-effects';
import { judgeStatuses, requiredOf } from './status-verdict';

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
  private readonly queueWorkflowId: string;

  constructor(
    private readonly ctx: QueueContext,
    private readonly hosts: HostReader,
    private readonly effects: SideEffects,
  ) {
    this.queueWorkflowId = queueWorkflowId(ctx.key);
  }

  execute(cmd: ExecutedCommand): void {
    switch (cmd.type) {
      case 'startTestRun':
        return this.startTestRun(cmd);
      case 'cancelTestRun':
        return this.cancelTestRun(cmd.runId, cmd.reason);
      case 'merge':
        return this.merge(cmd);
    }
  }

  private prs(numbers: number[]): PullRequestToApply[] {
    return numbers.map((n) => {
      const entry = this.ctx.carried.engine.entries.find((e) => e.pr === n);
      const commitMessage = this.ctx.carried.prs[String(n)]?.commitMessage;
      return { number: n, headSha: entry?.headSha ?? '', ...(commitMessage ? { commitMessage } : {}) };
    });
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
        const built = await git.buildTestRun({
          organisationId: key.organisationId,
          repo: key.repo,
          targetBranch: key.targetBranch,
          runId: cmd.runId,
          branchPr: cmd.prs[0] ?? 0,
          buildOnSha: stacked?.headSha ?? cmd.baseSha,
          prs: this.prs(apply),
          // Stacked: the PRs ahead are in buildOnSha; a conflict names the one it clashes with.
          ...(stacked && cmd.ahead.length > 0 ? { underneath: this.prs(cmd.ahead) } : {}),
          mergeMethod: c.engine.config.mergeMethod,
          queueNamesChecks: run.runner === 'statuses',
          testBranchPrefix: c.runner.testBranchPrefix ?? null,
          // Draft-PR testing mode: `pull_request` CI runs on a draft PR from the branch.
          ...(c.runner.createPrsForTestingBranches ? { testPullRequest: { prs: cmd.prs } } : {}),
          ...(run.runner === 'command' ? { testRun: this.testRunStart(run, cmd.onlyTests) } : {}),
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
              if (run.child && run.childStarted) await this.cancelChild(run.child);
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
            // Its PRs' records (and live comments) name the commit CI now checks.
            for (const pr of cmd.prs)
              this.ctx.refreshDetails(pr, { branch: built.branchName, sha: built.headSha });
            if (run.runner === 'statuses') {
              judgeStatuses(this.ctx, run);
              // CI may have reported before the run knew its commit: read what the host holds.
              if (built.checks) this.hosts.readChecks(run);
            } else if (built.testRunStarted) takeEarlyRunResult(this.ctx, run);
            // A build that started no run (an activity without a starter): the queue starts it.
            else await this.startCommandRun(run);
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
          this.ctx.track(() => this.cancelChild(workflowId));
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

  /**
   * How the build activity starts the run's test-run workflow (command runner). `onlyTests` (the engine's,
   * bounded) is not carried: a run started later by startCommandRun runs the whole suite, which is
   * always correct, only slower.
   */
  private testRunStart(run: RunMeta, onlyTests?: readonly string[]): TestRunStart {
    const { carried: c, key } = this.ctx;
    return {
      workflowId: testRunWorkflowId(key, run.runId),
      taskQueue: workflowInfo().taskQueue,
      staticSummary: `Test run of PR ${run.prs.map((n) => `#${n}`).join(', ')}${run.bisection ? ' (bisection)' : ''}`,
      input: {
        queueWorkflowId: this.queueWorkflowId,
        organisationId: key.organisationId,
        runId: run.runId,
        repo: key.repo,
        // The judge names where a failed test last passed on it (issue 28, "it passed on main at C").
        targetBranch: key.targetBranch,
        timeoutMs: c.engine.config.testingTimeoutMinutes * 60_000,
        // Read when the run starts: a change applies to runs started after it.
        network: c.runner.testNetwork !== false,
        ...(onlyTests && onlyTests.length > 0 ? { onlyTests: [...onlyTests] } : {}),
      },
    };
  }

  /** Starts the run's test-run workflow as an abandoned child: only when its build did not. */
  private async startCommandRun(run: RunMeta): Promise<void> {
    const start = this.testRunStart(run);
    run.child = start.workflowId;
    await startChild<TestRunWorkflow>(TEST_RUN_WORKFLOW_TYPE, {
      workflowId: start.workflowId,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [{ ...start.input, branchName: run.branchName!, headSha: run.headSha! }],
      staticSummary: start.staticSummary,
    });
    // Temporal refuses a start and a cancel of the same child in one workflow task, so a run cancelled
    // while its child was being started is cancelled only now that the start is recorded.
    run.childStarted = true;
    if (run.status === 'cancelled') await this.cancelChild(start.workflowId);
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
    if (child && run.childStarted) this.ctx.track(() => this.cancelChild(child));
  }

  private async cancelChild(workflowId: string): Promise<void> {
    await getExternalWorkflowHandle(workflowId)
      .cancel()
      .catch(() => undefined); // already finished
  }

  private merge(cmd: Extract<EngineCommand, { type: 'merge' }>): void {
    const { carried: c, key } = this.ctx;
    const run = cmd.runId ? c.runs.find((r) => r.runId === cmd.runId) : undefined;
    this.ctx.track(
      async () => {
        const r = await git.land({
          organisationId: key.organisationId,
          repo: key.repo,
          targetBranch: key.targetBranch,
          via: cmd.via,
          testedSha: run?.headSha ?? null,
          ...(run?.headTree ? { testedTree: run.headTree } : {}),
          expectedTipSha: cmd.expectedTipSha,
          prs: this.prs(cmd.prs),
          mergeMethod: cmd.method,
          mergeId: cmd.mergeId,
          ...(c.runner.landingMode ? { landing: c.runner.landingMode } : {}),
          testBranchPrefix: c.runner.testBranchPrefix ?? null,
        });
        switch (r.kind) {
          case 'landed':
            if (r.warning)
              log.error('landed a tree other than the tested one', {
                mergeId: cmd.mergeId,
                warning: r.warning,
              });
            if (r.proof) this.recordLanding(cmd.prs, r.tipSha, r.proof);
            this.ctx.push({ type: 'mergeDone', mergeId: cmd.mergeId, newTipSha: r.tipSha });
            return;
          case 'target_moved':
            this.ctx.push({
              type: 'mergeFailed',
              mergeId: cmd.mergeId,
              reason: 'TARGET_BRANCH_MOVED',
              pr: null,
              mergedPrs: [],
              tipSha: r.tipSha,
            });
            return;
          case 'pr_problem':
            // A PR closed under the merge leaves the queue as cancelled; the merge then fails without blame on it.
            if (r.reason === 'PR_CLOSED')
              this.ctx.push({ type: 'cancelled', pr: r.prNumber, reason: 'PR_CLOSED' });
            this.ctx.push({
              type: 'mergeFailed',
              mergeId: cmd.mergeId,
              reason: r.reason === 'PR_CLOSED' ? 'GITHUB_API_MERGE_PR_FAILED' : r.reason,
              pr: r.prNumber,
              mergedPrs: [],
              tipSha: null,
            });
            return;
          case 'rejected':
            log.warn('landing refused', { mergeId: cmd.mergeId, detail: r.detail });
            // The trees behind a refused landing go into the failed PR's record (reason-details.ts).
            if (r.reason === 'LANDED_TREE_DIFFERS' && run)
              run.detail = { kind: 'problem', text: r.detail.slice(0, MAX_DETAIL_TEXT) };
            this.ctx.push({
              type: 'mergeFailed',
              mergeId: cmd.mergeId,
              reason: r.reason,
              pr: cmd.prs.find((pr) => !(r.merged?.prs ?? []).includes(pr)) ?? cmd.prs[0] ?? null,
              mergedPrs: r.merged?.prs ?? [],
              tipSha: r.merged?.tipSha ?? null,
            });
            return;
        }
      },
      () => {
        // Git kept failing: report the merge failed so the engine decides again (landing is idempotent).
        this.ctx.push({
          type: 'mergeFailed',
          mergeId: cmd.mergeId,
          reason: 'GITHUB_API_MERGE_PR_FAILED',
          pr: null,
          mergedPrs: [],
          tipSha: null,
        });
      },
    );
  }

  /**
   * Keeps a landing's proof with its PRs for their `merged` transition (reason-details.ts), and says
   * so in the log when the target did not hold the tested tree right after the landing.
   */
  private recordLanding(prs: number[], sha: string, proof: LandingProof): void {
    for (const pr of prs) {
      const meta = this.ctx.carried.prs[String(pr)];
      if (meta) meta.landing = { sha, ...proof };
    }
    if (proof.testedTree !== null && !proof.rebased && proof.landedTree !== proof.testedTree)
      log.error('landed tree differs from the tested tree', {
        prs,
        sha,
        testedTree: proof.testedTree,
        landedTree: proof.landedTree,
      });
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
