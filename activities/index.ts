/**
 * createActivities(deps): the one object of activity implementations the worker registers. Every
 * dependency (pool, git host, runners) comes in through `deps`; nothing here reads the environment.
 */
import type { Pool } from '../stores/db';
import { createEventActivities } from './events';
import { createFlakyActivities } from './flaky';
import type { TestCaseEvents } from '../flaky/events';
import type { RetentionDefaults } from '../flaky/retention';
import { createMergeQueueActivities, type MergeQueueActivityDeps } from './merge-queue';
import type { GitHubAppAuth } from '../github/app/app-auth';
import type { GitHubAppSettings } from '../github/app/config';
import type { GitHubClients } from '../github/app/rest-client';
import { createGitHubReconciliationActivities } from './github-reconciliation';
import { createLandingCheckActivities } from './landing-check';
import { createPreflightActivities, type DraftRetry } from './preflight';
import type { PullRequestPresenter } from '../github/presentation/pr-presenter';
import { createPresentationActivities } from './presentation';
import { createPingActivities } from './ping';
import { installationOwnership } from '../github/store/installations';
import { createRepositoryOwnerStore, rememberingOwnership } from '../stores/repository-owners';
import { createRunLogStore } from '../test-runs/store/run-logs';
import { createTestBranchDeleter } from './merge-queue/git-activities';
import { createSideEffectActivities } from './side-effects';
import { createStalledChecksAnnouncer } from './events/stalled-checks';
import { publicUrlOf } from '../platform/public-url';
import type { DeliveryRetryPolicy } from '../webhooks/types';

export interface ActivityDeps extends MergeQueueActivityDeps {
  workerIdentity: string;
  pool: Pool;
  allowPrivateWebhookUrls: boolean;
  /** Base of the links in webhook payloads (http_details_url). */
  publicUrl?: string;
  /** Overrides of the webhook delivery retry policy (tests shorten it). */
  webhookRetry?: Partial<DeliveryRetryPolicy>;
  /**
   * The test_case.* webhook events (flaky/events.ts), shared with the store behind `judgeTests` so
   * one dispatch loop serves both; the re-evaluation sends its changes and drains the outbox with it.
   */
  testCaseEvents?: TestCaseEvents;
  /** Flaky-test retention when an organisation sets none (ADR 0019); the built-in defaults without. */
  flakyRetention?: RetentionDefaults;
  /** repo.host a configured GitHub App serves: its repositories are owned through linked installations. */
  gitHubHost?: string;
  /** With a GitHub App: what the webhook reconciliation needs (activities/github-reconciliation.ts). */
  gitHub?: { settings: GitHubAppSettings; auth: GitHubAppAuth; clients?: GitHubClients; namespace: string };
  /** Shows PRs' records on their host (GitHub's live comment and check run); none: nothing shown. */
  presenter?: PullRequestPresenter;
  /** The preflight's bound on a draft PR the host cannot open now (tests shorten it); 60 s without. */
  preflightDraftRetry?: Partial<DraftRetry>;
}

export function createActivities(deps: ActivityDeps) {
  const ownership = rememberingOwnership(
    deps.gitHubHost === undefined
      ? createRepositoryOwnerStore(deps.pool)
      : installationOwnership(deps.pool, deps.gitHubHost, createRepositoryOwnerStore(deps.pool)),
  );
  // Built first: the git activities take the effects along (ADR 0028). The deps below are only called
  // when an effect is performed, after every activity here exists.
  const sideEffects = createSideEffectActivities({
    appendTransitions: (input) => events.appendTransitions(input),
    notifyPullRequest: (input) => mergeQueue.notifyPullRequest(input),
    refreshPullRequestDetails: async (input) => {
      await mergeQueue.refreshPullRequestDetails(input);
      // Stalled checks also go out as a webhook (pull_request.checks_stalled), once per key.
      if (input.refresh.stalledChecks) await announceStalledChecks(input);
    },
    deleteTestBranch: createTestBranchDeleter(deps.gitHost),
  });
  const mergeQueue = createMergeQueueActivities({
    ...deps,
    runLogs: deps.runLogs ?? createRunLogStore(deps.pool),
    ownership,
    performSideEffects: (input) => sideEffects.performSideEffects(input),
  });
  const events = createEventActivities({
    pool: deps.pool,
    client: deps.client,
    taskQueue: deps.taskQueue,
    allowPrivateWebhookUrls: deps.allowPrivateWebhookUrls,
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.webhookRetry ? { webhookRetry: deps.webhookRetry } : {}),
  });
  // Not an activity: the side effects call it after a refresh that reports stalled checks.
  const announceStalledChecks = createStalledChecksAnnouncer({
    pool: deps.pool,
    client: deps.client,
    taskQueue: deps.taskQueue,
    ...(deps.webhookRetry ? { retry: deps.webhookRetry } : {}),
    publicUrl: publicUrlOf(deps.publicUrl),
  });
  return {
    ...createPingActivities(deps),
    ...createPresentationActivities({
      ...(deps.presenter ? { presenter: deps.presenter } : {}),
      owns: (organisationId, repo) => ownership.owns(organisationId, repo),
    }),
    ...(deps.gitHub
      ? createGitHubReconciliationActivities({
          pool: deps.pool,
          client: deps.client,
          namespace: deps.gitHub.namespace,
          settings: deps.gitHub.settings,
          auth: deps.gitHub.auth,
          ...(deps.gitHub.clients ? { clients: deps.gitHub.clients } : {}),
        })
      : {}),
    ...mergeQueue,
    ...createFlakyActivities({
      pool: deps.pool,
      ...(deps.testCaseEvents ? { events: deps.testCaseEvents } : {}),
      ...(deps.flakyRetention ? { retention: deps.flakyRetention } : {}),
    }),
    ...events,
    ...createLandingCheckActivities({ pool: deps.pool, gitHost: deps.gitHost }),
    ...createPreflightActivities({
      gitHost: deps.gitHost,
      ownership,
      ...(deps.preflightDraftRetry ? { draftRetry: deps.preflightDraftRetry } : {}),
    }),
    // The queue workflow's one activity per decision for its side effects, over the ones above.
    ...sideEffects,
  };
}

export type Activities = ReturnType<typeof createActivities>;
