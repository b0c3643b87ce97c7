/**
 * The PR presenter port and its GitHub adapter: shows a PR's record on the PR itself (one live comment
 * edited in place, a short announcement when it fails or is cancelled, and a "railyard merge queue"
 * check run on its head). The PR workflow calls it with the record after coalescing transitions.
 *
 * Invariants:
 * - Idempotent under activity retries: the live comment is found again by its marker when its id was
 *   lost, an announcement is written once per (submission, transition) by its marker, and the check
 *   run is updated in place while the head is the same.
 * - Only repositories a linked installation covers are written to; others (and every other host)
 *   present nothing.
 * - Bounded: at most MAX_COMMENT_PAGES pages of comments are searched for the markers.
 * - Only the App's own comments are found by a marker (made through its installation token:
 *   `performed_via_github_app` is this App, by its bot user): anyone can write the marker text, and a
 *   planted one must not make railyard edit someone else's comment or skip an announcement.
 * - The check run's details link is the PR's page on railyard's dashboard (authenticated), never
 *   Temporal's UI, which has no authentication.
 */
import type { PresentedIds, PresentPullRequestInput, RepositoryKey } from '../../contract';
import {
  announcement,
  announceMarker,
  CHECK_RUN_NAME,
  liveComment,
  LIVE_MARKER,
  presentedState,
} from './pr-comment';
import { GitHubApiError, type GitHubClients, type GitHubRest } from '../app/rest-client';

const MAX_COMMENT_PAGES = 3;

export interface PullRequestPresenter {
  present(input: PresentPullRequestInput): Promise<PresentedIds>;
}

/** Hosts with nothing to show a PR on (local): the ids stay as they were. */
export const NO_PRESENTER: PullRequestPresenter = { present: (input) => Promise.resolve(input.ids) };

/** A comment as GitHub lists it: only what telling the App's own apart needs. */
interface ListedComment {
  id: number;
  body?: string;
  user?: { type?: string } | null;
  performed_via_github_app?: { id?: number } | null;
}

/** Whether the App wrote the comment (see the invariants above). */
export const byApp = (comment: ListedComment, appId: number): boolean =>
  comment.user?.type === 'Bot' && comment.performed_via_github_app?.id === appId;

/** The dashboard's page of a PR (api/dashboard/routes/pull-request.ts), under railyard's public URL. */
export function dashboardPrUrl(
  publicUrl: string,
  input: Pick<PresentPullRequestInput, 'key' | 'record'>,
): string {
  const { key, record } = input;
  const query = new URLSearchParams({
    host: key.repo.host,
    owner: key.repo.owner,
    name: key.repo.name,
    branch: key.targetBranch,
    pr: String(record.prNumber),
  });
  return `${publicUrl.replace(/\/+$/, '')}/ui/pr?${query.toString()}`;
}

export function createGitHubPresenter(deps: {
  host: string;
  /** The App's id: only comments it made are searched for markers. */
  appId: number;
  clients: GitHubClients;
  installationOf: (repo: RepositoryKey) => Promise<number | null>;
  /** Where the check run's details link points (railyard's public URL), if set. */
  detailsUrl?: (input: PresentPullRequestInput) => string | undefined;
}): PullRequestPresenter {
  const host = deps.host.toLowerCase();

  async function findComments(
    client: GitHubRest,
    params: { owner: string; repo: string },
    n: number,
    markers: string[],
  ): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
      const r = await client.request<ListedComment[]>(
        'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
        { ...params, issue_number: n, per_page: 100, page },
      );
      for (const c of r.data.filter((c) => byApp(c, deps.appId)))
        for (const m of markers) if (c.body?.includes(m) && !found.has(m)) found.set(m, c.id);
      if (r.data.length < 100) break;
    }
    return found;
  }

  return {
    async present(input) {
      const { key, record, presentation, seq } = input;
      const repo = key.repo;
      if (repo.host.toLowerCase() !== host) return input.ids;
      const installationId = await deps.installationOf(repo);
      if (installationId === null) return input.ids;
      const client = await deps.clients.forInstallation(installationId);
      const params = { owner: repo.owner, repo: repo.name };
      const n = record.prNumber;
      const branch = key.targetBranch;
      const state = presentedState(record, presentation, branch);
      const ids: PresentedIds = { ...input.ids };

      if (presentation.comment) {
        const body = liveComment(record, presentation, branch);
        const announce = state.announce && seq > ids.announcedSeq;
        const marker = announceMarker(record.id, seq);
        const known =
          ids.commentId === null || announce
            ? await findComments(client, params, n, [LIVE_MARKER, marker])
            : null;
        ids.commentId = ids.commentId ?? known?.get(LIVE_MARKER) ?? null;
        let edited = false;
        if (ids.commentId !== null) {
          try {
            await client.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
              ...params,
              comment_id: ids.commentId,
              body,
            });
            edited = true;
          } catch (err) {
            // Deleted by someone: write a new one.
            if (!(err instanceof GitHubApiError && err.status === 404)) throw err;
          }
        }
        if (!edited) {
          const r = await client.request<{ id: number }>(
            'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
            {
              ...params,
              issue_number: n,
              body,
            },
          );
          ids.commentId = r.data.id;
        }
        if (announce) {
          if (!known?.has(marker))
            await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
              ...params,
              issue_number: n,
              body: announcement(record, presentation, branch, seq),
            });
          ids.announcedSeq = seq;
        }
      }

      const headSha = record.details?.headSha;
      if (presentation.checkRun && headSha) {
        const output = { title: state.headline.replace(/^\S+\s/, ''), summary: state.detail };
        const details = deps.detailsUrl?.(input);
        const body = {
          ...params,
          name: CHECK_RUN_NAME,
          status: state.checkRun.status,
          ...(state.checkRun.conclusion ? { conclusion: state.checkRun.conclusion } : {}),
          external_id: record.id,
          output,
          ...(details ? { details_url: details } : {}),
        };
        let updated = false;
        if (ids.checkRunId !== null) {
          try {
            const r = await client.request<{ head_sha: string }>(
              'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
              { ...body, check_run_id: ids.checkRunId },
            );
            updated = r.data.head_sha === headSha;
          } catch (err) {
            if (!(err instanceof GitHubApiError && err.status === 404)) throw err;
          }
        }
        if (!updated) {
          const r = await client.request<{ id: number }>('POST /repos/{owner}/{repo}/check-runs', {
            ...body,
            head_sha: headSha,
          });
          ids.checkRunId = r.data.id;
        }
      }
      return ids;
    },
  };
}

/** Picks the presenter of the repository's host. */
export function routingPresenter(
  host: string | undefined,
  gitHub: PullRequestPresenter | null,
): PullRequestPresenter {
  if (host === undefined || gitHub === null) return NO_PRESENTER;
  const h = host.toLowerCase();
  return {
    present: (input) =>
      input.key.repo.host.toLowerCase() === h ? gitHub.present(input) : NO_PRESENTER.present(input),
  };
}

/**
 * The presenter, writing only to a repository the queue's organisation owns (ADR 0006): a PR of any
 * other repository presents nothing and keeps its ids. No presenter: nothing is shown anywhere.
 */
export function ownedRepositoriesOnly(
  presenter: PullRequestPresenter | undefined,
  owns: (organisationId: string, repo: RepositoryKey) => Promise<boolean>,
): PullRequestPresenter {
  const inner = presenter ?? NO_PRESENTER;
  return {
    async present(input) {
      if (!(await owns(input.key.organisationId, input.key.repo))) return input.ids;
      return inner.present(input);
    },
  };
}
