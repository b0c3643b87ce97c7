/**
 * What the dashboard needs: its session store and PostgreSQL reads, and the same services the API's
 * routes use (the merge-queue service, the flaky store, repository ownership, queue metrics), so a
 * page shows and changes exactly what the API would for the signed-in organisation.
 */
import type { Pool } from '../../../stores/db';
import type { FlakyStore } from '../../../flaky/service';
import type { RepositoryOwnerStore } from '../../../stores/repository-owners';
import type { AuthFailureLimiter } from '../../plugins/auth-failures';
import type { RepositoryAccess } from '../../plugins/repository-access';
import type { DashboardReads } from '../store/reads';
import type { UiSessionStore } from '../store/sessions';
import type { MergeQueueService } from '../../routes/merge-queue';
import type { GitHubInstallationApiDeps } from '../../routes/github/installations';

/** What buildApp's caller gives (AppDeps.ui); the rest comes from the app's other dependencies. */
export interface UiDeps {
  readonly sessions: UiSessionStore;
  /** The event log and flaky-test rollups (the routes' pool). */
  readonly pool: Pool;
  /** The Temporal Web UI, for links to a PR's workflow; no links when absent. */
  readonly temporalUi?: { readonly url: string; readonly namespace: string };
  /** How often live parts of a page refresh (default 2000 ms). */
  readonly pollMs?: number;
}

export interface UiRouteDeps extends UiDeps {
  readonly reads: DashboardReads;
  readonly mergeQueue: MergeQueueService;
  readonly flaky?: FlakyStore;
  readonly owners: RepositoryOwnerStore;
  readonly access: RepositoryAccess;
  readonly failures?: AuthFailureLimiter;
  /** GitHub App installations and their linking flow (/ui/github), when an app is configured. */
  readonly gitHub?: GitHubInstallationApiDeps;
  /** Cookies are Secure when this is https. */
  readonly publicUrl: string;
  readonly now: () => number;
}
