/**
 * What happened in fakehub's world, as the state reports it: one HubEvent per change that GitHub
 * announces with a webhook. The webhook side (webhooks.ts) turns each into a delivery; the state knows
 * nothing of deliveries.
 *
 * Invariants: an event carries copies (`pr`, `run`, `status`) taken when it happened, so a delivery
 * describes the object as it was then, whatever changed before the delivery was built; the event is
 * emitted after the change is applied (a `closed` PR is closed in the copy).
 */
import type { CheckRun, CommitStatus, IssueComment, PullRequest, Review } from './state';

/** Who did it: a person (login) or an App's bot user (`<slug>[bot]`). */
export interface Actor {
  login: string;
  type: 'User' | 'Bot';
  /**
   * The App acting through its installation token (its bot user): what GitHub shows as a comment's
   * `performed_via_github_app`. A person, or another App's bot made with `hub().comment`, has none.
   */
  app?: { id: number; slug: string };
}

/** `changes` of `pull_request.edited`: the previous values of what changed. */
export interface PullRequestChanges {
  base?: { ref: { from: string }; sha: { from: string } };
  title?: { from: string };
  body?: { from: string };
}

interface PullRequestEventBase {
  kind: 'pull_request';
  repositoryId: number;
  pr: PullRequest;
  sender: Actor;
}

export type HubEvent =
  | (PullRequestEventBase & {
      action: 'opened' | 'closed' | 'reopened' | 'ready_for_review' | 'converted_to_draft';
    })
  | (PullRequestEventBase & { action: 'synchronize'; before: string; after: string })
  | (PullRequestEventBase & { action: 'edited'; changes: PullRequestChanges })
  | {
      kind: 'push';
      repositoryId: number;
      /** Full ref name: `refs/heads/<b>` or `refs/tags/<t>`. */
      ref: string;
      before: string;
      after: string;
      /** True when `after` does not descend from `before` (both non-zero). */
      forced: boolean;
      sender: Actor;
    }
  | { kind: 'check_run'; action: 'created' | 'completed'; repositoryId: number; run: CheckRun; sender: Actor }
  | { kind: 'status'; repositoryId: number; status: CommitStatus; sender: Actor }
  | {
      /** A comment on a PR's conversation (GitHub: an issue comment); `edited` carries the old body. */
      kind: 'issue_comment';
      action: 'created' | 'edited' | 'deleted';
      repositoryId: number;
      pr: PullRequest;
      comment: IssueComment;
      changes?: { body: { from: string } };
      sender: Actor;
    }
  | {
      /** A review submitted on a PR, or one dismissed (the copy then says `dismissed`). */
      kind: 'pull_request_review';
      action: 'submitted' | 'dismissed';
      repositoryId: number;
      pr: PullRequest;
      review: Review;
      sender: Actor;
    }
  | {
      kind: 'installation_repositories';
      action: 'added';
      installationId: number;
      repositoryIds: number[];
      sender: Actor;
    };

export type HubEventListener = (event: HubEvent) => void;
