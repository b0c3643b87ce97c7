/**
 * The worker's GitHub side, composed once from the App settings: one App authentication (tokens cached
 * per installation), one REST client per installation, and the `github` git host with its mirrors
 * under the worker's data folder. The PR presenter has clients of its own, in a write lane paced at
 * `presentationWritesPerMinute`, so showing PRs never delays the queue's own writes. The worker (and the end-to-end harness) route repositories of the
 * App's host to it (routing-git-host.ts).
 */
import type { Pool } from '../../stores/db';
import { createGitHubAppAuth, type GitHubAppAuth } from './app-auth';
import type { GitHubAppSettings } from './config';
import { createGitHubClients, type GitHubClientOptions, type GitHubClients } from './rest-client';
import { createGitHubGitHost } from '../host/git-host';
import type { GitHost } from '../../git/git-host';
import { installationCovering } from '../store/installations';
import {
  createGitHubPresenter,
  dashboardPrUrl,
  type PullRequestPresenter,
} from '../presentation/pr-presenter';
import type { ProcessRunner } from '../../platform/process-runner';

export interface GitHubWorkerHost {
  auth: GitHubAppAuth;
  clients: GitHubClients;
  gitHost: GitHost;
  /** Shows each PR's record on the PR (live comment, check run). */
  presenter: PullRequestPresenter;
}

export async function createGitHubWorkerHost(deps: {
  settings: GitHubAppSettings;
  pool: Pool;
  /** Folder of the mirrors, inside the worker's data folder. */
  mirrorRoot: string;
  clientOptions?: GitHubClientOptions;
  /** railyard's public URL: the check run's details link points at the PR's dashboard page there. */
  publicUrl?: string;
  /** Who starts git's processes (the worker's process broker). */
  runner?: ProcessRunner;
}): Promise<GitHubWorkerHost> {
  const { settings, pool } = deps;
  const auth = await createGitHubAppAuth(settings);
  const clients = await createGitHubClients(settings, auth, deps.clientOptions);
  const presentationClients = await createPresentationClients(
    settings,
    auth,
    settings.presentationWritesPerMinute,
    deps.clientOptions,
  );
  const gitHost = createGitHubGitHost({
    mirrorRoot: deps.mirrorRoot,
    gitUrl: settings.gitUrl,
    installationOf: (repo) => installationCovering(pool, repo),
    clients,
    auth,
    testBranchPrefix: settings.testBranchPrefix,
    runner: deps.runner,
  });
  const publicUrl = deps.publicUrl;
  const presenter = createGitHubPresenter({
    host: settings.host,
    appId: settings.appId,
    clients: presentationClients,
    installationOf: (repo) => installationCovering(pool, repo),
    // The dashboard's PR page (signed in), never Temporal's UI (no authentication).
    ...(publicUrl ? { detailsUrl: (input) => dashboardPrUrl(publicUrl, input) } : {}),
  });
  return { auth, clients, gitHost, presenter };
}

/**
 * The PR presenter's clients: a write lane of their own paced at `writesPerMinute` per installation, so
 * a burst of comment edits never delays a landing (and stays inside GitHub's secondary limits).
 */
export function createPresentationClients(
  settings: { apiUrl: string },
  auth: Pick<GitHubAppAuth, 'installationToken' | 'forget'>,
  writesPerMinute: number,
  clientOptions: GitHubClientOptions = {},
): Promise<GitHubClients> {
  const interval = Math.ceil(60_000 / writesPerMinute);
  return createGitHubClients(settings, auth, {
    ...clientOptions,
    lane: 'presentation',
    writeIntervalMs: interval,
    notificationIntervalMs: Math.max(interval, clientOptions.notificationIntervalMs ?? 3_000),
  });
}
