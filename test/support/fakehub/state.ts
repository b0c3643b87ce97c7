/**
 * fakehub's world: installations, repositories (real bare repositories on disk), pull requests, check
 * runs, commit statuses and branch protection, with the rules GitHub applies to them.
 *
 * Invariants:
 * - A repository's git data lives only in its bare repository; a PR's head sha is always the value of
 *   `refs/pull/<n>/head`, which only this module writes (pushes to `refs/pull/*` are refused by git:
 *   `receive.hideRefs`).
 * - A push to a PR's head branch moves `refs/pull/<n>/head`; a push to a base branch that makes an open
 *   PR's head reachable marks it merged (GitHub's behaviour for fast-forward landings).
 * - A protected branch refuses, with GitHub's GH006 text: deletion, non-fast-forward updates, and,
 *   unless the pusher's App is on the bypass list, any direct update (`restrictUpdates`) or an update
 *   whose commit lacks a successful required status check.
 * - Every change GitHub announces with a webhook is reported to the listener (events.ts), after it is
 *   applied and in the order it happened: a push reports `push` first, then what it did to PRs
 *   (`synchronize`, `closed`).
 * - Comments are PR conversation comments (GitHub's issue comments): created, edited and deleted ones
 *   are announced (`issue_comment`), whoever wrote them, the App's bot included. A reaction is kept
 *   once per user and content. A user's role on a repository is what a test set (setPermission).
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createGit, type Git } from '../../../git/git-cli';
import { initBareRepository } from '../../../git/repository-path';
import type { Actor, HubEvent, HubEventListener, PullRequestChanges } from './events';
import type { ProcessRunner } from '../../../platform/process-runner';

export const GITHUB_HOST = 'github.com';
export const ZERO_SHA = '0000000000000000000000000000000000000000';

export interface Installation {
  id: number;
  account: string;
  accountType: 'Organization' | 'User';
  accountId: number;
  createdAt: Date;
}

export interface Protection {
  /** Contexts (check-run names or status contexts) that must succeed on the pushed/merged commit. */
  requiredStatusChecks?: string[];
  /** `strict`: the PR must be up to date with the base (reported in rules only). */
  strict?: boolean;
  /** Only bypassing Apps may update the branch directly (GitHub's "Restrict updates"). */
  restrictUpdates?: boolean;
  /** Apps (by id) that bypass restrictUpdates and the required checks of direct pushes. */
  bypassAppIds?: number[];
  /** Reported as a `pull_request` rule. */
  requiredApprovingReviewCount?: number;
}

export interface Repository {
  id: number;
  owner: string;
  name: string;
  installationId: number;
  defaultBranch: string;
  bare: string;
  createdAt: Date;
  pushedAt: Date;
  protection: Map<string, Protection>;
  allowedMergeMethods: Set<MergeMethod>;
  /** Whether draft PRs can be opened (false: GitHub's plans without them for private repositories). */
  draftPullRequests: boolean;
  nextPrNumber: number;
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface PullRequest {
  id: number;
  number: number;
  repositoryId: number;
  title: string;
  body: string | null;
  author: string;
  headBranch: string;
  headSha: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: Date | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  closedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CheckRun {
  id: number;
  name: string;
  headSha: string;
  /** Set on runs an App created through the API (`POST /check-runs`). */
  byApp?: {
    externalId: string | null;
    title: string | null;
    summary: string | null;
    detailsUrl: string | null;
  };
  status: 'queued' | 'in_progress' | 'completed';
  conclusion:
    'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null;
  startedAt: Date;
  completedAt: Date | null;
}

export interface CommitStatus {
  id: number;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  creator: string;
  createdAt: Date;
}

export interface IssueComment {
  id: number;
  repositoryId: number;
  /** The issue or PR number (PR comments are issue comments on GitHub). */
  number: number;
  body: string;
  author: Actor;
  createdAt: Date;
  /** Set by the edits that announce themselves (editCommentAs); createdAt until then. */
  updatedAt?: Date;
  reactions: Reaction[];
}

/** A PR review (GitHub keeps every review; the latest non-comment review of each person counts). */
export interface Review {
  id: number;
  repositoryId: number;
  number: number;
  user: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  body: string;
  commitId: string;
  submittedAt: Date;
}

export const REACTION_CONTENTS = [
  '+1',
  '-1',
  'laugh',
  'confused',
  'heart',
  'hooray',
  'rocket',
  'eyes',
] as const;
export type ReactionContent = (typeof REACTION_CONTENTS)[number];

export interface Reaction {
  id: number;
  content: ReactionContent;
  user: Actor;
  createdAt: Date;
}

/** A user's role on a repository (GitHub's base roles); `permission` reports maintain as write. */
export type RepositoryRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface TreeEntry {
  mode: string;
  /** `blob`, `tree` or `commit` (a submodule). */
  type: string;
  sha: string;
  /** Bytes of a blob; 0 otherwise. */
  size: number;
  path: string;
}

export interface RefUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
  /** Computed by the pre-receive hook inside git's quarantine; null for creations and deletions. */
  fastForward: boolean | null;
}

/**
 * Who pushed: an App through an installation token, or a test writing to the disk directly (`login`
 * names the person in webhooks; `admin` when absent).
 */
export type Pusher = { kind: 'app'; appId: number; login: string } | { kind: 'admin'; login?: string };

export function actorOf(pusher: Pusher): Actor {
  return pusher.kind === 'app'
    ? { login: pusher.login, type: 'Bot' }
    : { login: pusher.login ?? 'admin', type: 'User' };
}

/** A login as GitHub shows it: an App's bot (`<slug>[bot]`, e.g. the author of a PR it opened) is a Bot. */
const user = (login: string): Actor => ({ login, type: login.endsWith('[bot]') ? 'Bot' : 'User' });

export class FakeHubState {
  readonly installations = new Map<number, Installation>();
  readonly repositories = new Map<string, Repository>();
  readonly pulls = new Map<string, PullRequest>();
  readonly checkRuns: CheckRun[] = [];
  readonly statuses: CommitStatus[] = [];
  readonly comments: IssueComment[] = [];
  readonly reviews: Review[] = [];
  /** Every write of an App's check run, in order: what a person watching the PR saw it go through. */
  readonly checkRunWrites: {
    runId: number;
    status: CheckRun['status'];
    conclusion: CheckRun['conclusion'];
    title: string | null;
  }[] = [];
  /** Roles by `<repository id>:<lower-case login>` (setPermission). */
  readonly roles = new Map<string, RepositoryRole>();
  private nextId = 1000;
  readonly git: Git;

  /** `onEvent` hears every change GitHub would announce with a webhook (see events.ts). */
  constructor(
    readonly gitRoot: string,
    private readonly onEvent: HubEventListener = () => undefined,
    /** Who starts git's processes (a broker: this runs inside the large jest process). */
    runner?: ProcessRunner,
  ) {
    this.git = createGit({ identity: { name: 'GitHub', email: 'noreply@github.com' }, runner });
  }

  private emit(event: HubEvent): void {
    this.onEvent(event);
  }

  private pullEvent(
    pr: PullRequest,
    sender: Actor,
  ): { kind: 'pull_request'; repositoryId: number; pr: PullRequest; sender: Actor } {
    return { kind: 'pull_request', repositoryId: pr.repositoryId, pr: { ...pr }, sender };
  }

  id(): number {
    return this.nextId++;
  }

  createInstallation(
    account: string,
    accountType: Installation['accountType'] = 'Organization',
  ): Installation {
    const installation = { id: this.id(), account, accountType, accountId: this.id(), createdAt: new Date() };
    this.installations.set(installation.id, installation);
    return installation;
  }

  async createRepository(input: {
    installationId: number;
    owner: string;
    name: string;
    defaultBranch: string;
  }): Promise<Repository> {
    if (!this.installations.has(input.installationId))
      throw new Error(`fakehub: installation ${input.installationId} does not exist`);
    const key = `${input.owner}/${input.name}`.toLowerCase();
    if (this.repositories.has(key)) throw new Error(`fakehub: repository ${key} already exists`);
    const bare = await initBareRepository(
      this.gitRoot,
      { host: GITHUB_HOST, owner: input.owner, name: input.name },
      { defaultBranch: input.defaultBranch },
    );
    // GitHub refuses pushes to refs/pull/* ("deny updating a hidden ref") yet serves them to fetches.
    await this.run(bare, ['config', 'receive.hideRefs', 'refs/pull']);
    await this.run(bare, ['config', 'http.receivepack', 'true']);
    const now = new Date();
    const repository: Repository = {
      id: this.id(),
      owner: input.owner,
      name: input.name,
      installationId: input.installationId,
      defaultBranch: input.defaultBranch,
      bare,
      createdAt: now,
      pushedAt: now,
      protection: new Map(),
      allowedMergeMethods: new Set(['merge', 'squash', 'rebase']),
      draftPullRequests: true,
      nextPrNumber: 1,
    };
    this.repositories.set(key, repository);
    return repository;
  }

  repository(owner: string, name: string): Repository | undefined {
    return this.repositories.get(`${owner}/${name}`.toLowerCase());
  }

  requireRepository(owner: string, name: string): Repository {
    const repository = this.repository(owner, name);
    if (!repository) throw new Error(`fakehub: repository ${owner}/${name} does not exist`);
    return repository;
  }

  pull(repository: Repository, number: number): PullRequest | undefined {
    return this.pulls.get(`${repository.id}#${number}`);
  }

  pullsOf(repository: Repository): PullRequest[] {
    return [...this.pulls.values()].filter((pr) => pr.repositoryId === repository.id);
  }

  async openPullRequest(
    repository: Repository,
    input: { head: string; base: string; title: string; author: string; draft: boolean; body: string | null },
  ): Promise<PullRequest> {
    const headSha = await this.resolveCommit(repository, `refs/heads/${input.head}`);
    if (!headSha) throw new Error(`fakehub: head branch ${input.head} does not exist`);
    if (!(await this.resolveCommit(repository, `refs/heads/${input.base}`)))
      throw new Error(`fakehub: base branch ${input.base} does not exist`);
    const now = new Date();
    const pr: PullRequest = {
      id: this.id(),
      number: repository.nextPrNumber++,
      repositoryId: repository.id,
      title: input.title,
      body: input.body,
      author: input.author,
      headBranch: input.head,
      headSha,
      base: input.base,
      draft: input.draft,
      state: 'open',
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.run(repository.bare, ['update-ref', `refs/pull/${pr.number}/head`, headSha]);
    this.pulls.set(`${repository.id}#${pr.number}`, pr);
    this.emit({ ...this.pullEvent(pr, user(pr.author)), action: 'opened' });
    return pr;
  }

  /** Closes an open PR without merging it (`sender`: who closed it; the author by default). */
  closePullRequest(pr: PullRequest, sender: Actor = user(pr.author)): void {
    if (pr.state === 'closed') return;
    pr.state = 'closed';
    pr.closedAt = pr.updatedAt = new Date();
    this.emit({ ...this.pullEvent(pr, sender), action: 'closed' });
  }

  /**
   * Reopens a closed, unmerged PR whose head branch still exists (GitHub's rules); the head follows the
   * branch again. Returns GitHub's refusal, or null when reopened.
   */
  async reopenPullRequest(
    repository: Repository,
    pr: PullRequest,
    sender: Actor = user(pr.author),
  ): Promise<string | null> {
    if (pr.state === 'open') return null;
    if (pr.merged) return 'Cannot reopen a merged pull request';
    const headSha = await this.resolveCommit(repository, `refs/heads/${pr.headBranch}`);
    if (!headSha) return 'Cannot reopen this pull request: the head branch was deleted';
    if (headSha !== pr.headSha) {
      pr.headSha = headSha;
      await this.run(repository.bare, ['update-ref', `refs/pull/${pr.number}/head`, headSha]);
    }
    pr.state = 'open';
    pr.closedAt = null;
    pr.updatedAt = new Date();
    this.emit({ ...this.pullEvent(pr, sender), action: 'reopened' });
    return null;
  }

  /**
   * Edits an open or closed PR: title, body, base (an existing branch other than the head). One
   * `edited` event lists every change with its previous value; nothing changed, nothing sent. Returns
   * GitHub's refusal, or null.
   */
  async editPullRequest(
    repository: Repository,
    pr: PullRequest,
    edit: { title?: string; body?: string; base?: string },
    sender: Actor = user(pr.author),
  ): Promise<string | null> {
    const changes: PullRequestChanges = {};
    if (edit.base !== undefined && edit.base !== pr.base) {
      if (pr.state !== 'open') return 'Cannot change the base branch of a closed pull request.';
      if (edit.base === pr.headBranch) return `The base branch can not be the same as the head branch.`;
      const to = await this.resolveCommit(repository, `refs/heads/${edit.base}`);
      if (!to) return `Proposed base branch '${edit.base}' was not found`;
      const from = (await this.resolveCommit(repository, `refs/heads/${pr.base}`)) ?? pr.headSha;
      changes.base = { ref: { from: pr.base }, sha: { from } };
    }
    if (edit.title !== undefined && edit.title !== pr.title) changes.title = { from: pr.title };
    if (edit.body !== undefined && edit.body !== (pr.body ?? '')) changes.body = { from: pr.body ?? '' };
    if (Object.keys(changes).length === 0) return null;
    if (changes.base) pr.base = edit.base!;
    if (changes.title) pr.title = edit.title!;
    if (changes.body) pr.body = edit.body!;
    pr.updatedAt = new Date();
    this.emit({ ...this.pullEvent(pr, sender), action: 'edited', changes });
    return null;
  }

  /** Marks an open PR merged by `by` into `mergeCommitSha` (GitHub's merge, or a landing push). */
  markMerged(pr: PullRequest, by: Actor, mergeCommitSha: string): void {
    if (pr.state !== 'open') return;
    pr.state = 'closed';
    pr.merged = true;
    pr.mergedAt = pr.closedAt = pr.updatedAt = new Date();
    pr.mergedBy = by.login;
    pr.mergeCommitSha = mergeCommitSha;
    this.emit({ ...this.pullEvent(pr, by), action: 'closed' });
  }

  /** A developer's push to the PR's head branch (outside git transport). */
  async pushPullRequest(repository: Repository, pr: PullRequest, sha: string): Promise<void> {
    await this.run(repository.bare, ['update-ref', `refs/heads/${pr.headBranch}`, sha]);
    await this.afterPush(
      repository,
      [{ ref: `refs/heads/${pr.headBranch}`, oldSha: pr.headSha, newSha: sha, fastForward: null }],
      { kind: 'admin', login: pr.author },
    );
  }

  /**
   * A CI's check run on `sha`. A run of the same name on the same commit that is not completed yet is
   * updated in place (same id, as a CI's PATCH does); otherwise a new run starts. Events: `created` for
   * a new run, and `completed` once it is completed.
   */
  recordCheckRun(
    repository: Repository,
    sha: string,
    input: { name: string; status: CheckRun['status']; conclusion: CheckRun['conclusion'] },
    sender: Actor,
  ): CheckRun {
    const open = this.checkRunsOf(repository, sha)
      .filter((r) => r.name === input.name)
      .at(-1);
    const completed = input.status === 'completed';
    let run: CheckRun;
    if (open && open.status !== 'completed') {
      run = open;
      run.status = input.status;
      run.conclusion = completed ? input.conclusion : null;
      run.completedAt = completed ? new Date() : null;
    } else {
      run = {
        id: this.id(),
        name: input.name,
        headSha: sha,
        status: input.status,
        conclusion: completed ? input.conclusion : null,
        startedAt: new Date(),
        completedAt: completed ? new Date() : null,
      };
      this.checkRuns.push(run);
      this.emit({
        kind: 'check_run',
        action: 'created',
        repositoryId: repository.id,
        run: { ...run },
        sender,
      });
    }
    if (completed)
      this.emit({
        kind: 'check_run',
        action: 'completed',
        repositoryId: repository.id,
        run: { ...run },
        sender,
      });
    return run;
  }

  /** A commit status (a CI's, or POST /statuses/{sha}); announced with a `status` event. */
  recordStatus(repository: Repository, status: CommitStatus, sender: Actor): CommitStatus {
    this.statuses.push(status);
    this.emit({ kind: 'status', repositoryId: repository.id, status: { ...status }, sender });
    return status;
  }

  /** A person reviews an open PR at its current head (announced as `pull_request_review.submitted`). */
  submitReview(pr: PullRequest, login: string, state: Review['state'], body = ''): Review {
    const review: Review = {
      id: this.id(),
      repositoryId: pr.repositoryId,
      number: pr.number,
      user: login,
      state,
      body,
      commitId: pr.headSha,
      submittedAt: new Date(),
    };
    this.reviews.push(review);
    this.emit({
      kind: 'pull_request_review',
      action: 'submitted',
      repositoryId: pr.repositoryId,
      pr: { ...pr },
      review: { ...review },
      sender: user(login),
    });
    return review;
  }

  reviewsOf(pr: PullRequest): Review[] {
    return this.reviews.filter((r) => r.repositoryId === pr.repositoryId && r.number === pr.number);
  }

  /** Marks a draft ready for review, or an open PR a draft again, as its author does. */
  setDraft(pr: PullRequest, draft: boolean): void {
    if (pr.draft === draft || pr.state !== 'open') return;
    pr.draft = draft;
    pr.updatedAt = new Date();
    this.emit({
      ...this.pullEvent(pr, user(pr.author)),
      action: draft ? 'converted_to_draft' : 'ready_for_review',
    });
  }

  addComment(repository: Repository, number: number, body: string, author: Actor): IssueComment {
    const comment: IssueComment = {
      id: this.id(),
      repositoryId: repository.id,
      number,
      body,
      author,
      createdAt: new Date(),
      reactions: [],
    };
    this.comments.push(comment);
    const pr = this.pull(repository, number);
    // A new comment updates its issue or PR, as on GitHub (`updated_at`, which a push also moves).
    if (pr) pr.updatedAt = comment.createdAt;
    if (pr) this.announceComment('created', pr, comment, author);
    return comment;
  }

  /** A check run an App creates or updates through the API; announced like a CI's. */
  writeAppCheckRun(
    repository: Repository,
    input: {
      id?: number;
      sha: string;
      name: string;
      status: CheckRun['status'];
      conclusion: CheckRun['conclusion'];
      byApp: NonNullable<CheckRun['byApp']>;
    },
    sender: Actor,
  ): CheckRun | null {
    const existing = input.id === undefined ? undefined : this.checkRuns.find((r) => r.id === input.id);
    if (input.id !== undefined && !existing) return null;
    const completed = input.status === 'completed';
    const run: CheckRun = existing ?? {
      id: this.id(),
      name: input.name,
      headSha: input.sha,
      status: input.status,
      conclusion: null,
      startedAt: new Date(),
      completedAt: null,
    };
    const wasCompleted = existing?.status === 'completed';
    run.name = input.name;
    run.status = input.status;
    run.conclusion = completed ? input.conclusion : null;
    run.completedAt = completed ? new Date() : null;
    run.byApp = input.byApp;
    this.checkRunWrites.push({
      runId: run.id,
      status: run.status,
      conclusion: run.conclusion,
      title: input.byApp.title,
    });
    if (!existing) {
      this.checkRuns.push(run);
      this.emit({
        kind: 'check_run',
        action: 'created',
        repositoryId: repository.id,
        run: { ...run },
        sender,
      });
    }
    if (completed && !wasCompleted)
      this.emit({
        kind: 'check_run',
        action: 'completed',
        repositoryId: repository.id,
        run: { ...run },
        sender,
      });
    return run;
  }

  commentsOf(repository: Repository, number: number): IssueComment[] {
    return this.comments.filter((c) => c.repositoryId === repository.id && c.number === number);
  }

  private announceComment(
    action: 'created' | 'edited' | 'deleted',
    pr: PullRequest,
    comment: IssueComment,
    sender: Actor,
    changes?: { body: { from: string } },
  ): void {
    this.emit({
      kind: 'issue_comment',
      action,
      repositoryId: pr.repositoryId,
      pr: { ...pr },
      comment: { ...comment, reactions: [...comment.reactions] },
      ...(changes ? { changes } : {}),
      sender,
    });
  }

  comment(repository: Repository, id: number): IssueComment | undefined {
    return this.comments.find((c) => c.repositoryId === repository.id && c.id === id);
  }

  /** Edits a comment's body as `sender` and announces it (`edited`, the old body in `changes`). */
  editCommentAs(repository: Repository, id: number, body: string, sender: Actor): IssueComment | null {
    const comment = this.comment(repository, id);
    if (!comment) return null;
    if (comment.body === body) return comment;
    const from = comment.body;
    comment.body = body;
    comment.updatedAt = new Date();
    const pr = this.pull(repository, comment.number);
    if (pr) this.announceComment('edited', pr, comment, sender, { body: { from } });
    return comment;
  }

  /** Deletes a comment (and its reactions) as `sender` and announces it (`deleted`). */
  deleteComment(repository: Repository, id: number, sender: Actor): boolean {
    const at = this.comments.findIndex((c) => c.repositoryId === repository.id && c.id === id);
    if (at < 0) return false;
    const [comment] = this.comments.splice(at, 1) as [IssueComment];
    const pr = this.pull(repository, comment.number);
    if (pr) this.announceComment('deleted', pr, comment, sender);
    return true;
  }

  /** `user`'s reaction to a comment; GitHub keeps one per user and content (`created: false` then). */
  react(
    comment: IssueComment,
    content: ReactionContent,
    user: Actor,
  ): { reaction: Reaction; created: boolean } {
    const held = comment.reactions.find((r) => r.content === content && r.user.login === user.login);
    if (held) return { reaction: held, created: false };
    const reaction: Reaction = { id: this.id(), content, user, createdAt: new Date() };
    comment.reactions.push(reaction);
    return { reaction, created: true };
  }

  setRole(repository: Repository, login: string, role: RepositoryRole | null): void {
    const key = `${repository.id}:${login.toLowerCase()}`;
    if (role === null) this.roles.delete(key);
    else this.roles.set(key, role);
  }

  /** The role a test gave `login` on the repository; undefined when none was given. */
  roleOf(repository: Repository, login: string): RepositoryRole | undefined {
    return this.roles.get(`${repository.id}:${login.toLowerCase()}`);
  }

  /** Announces repositories added to an installation after it was created. */
  announceRepositoriesAdded(installationId: number, repositories: Repository[], sender: Actor): void {
    this.emit({
      kind: 'installation_repositories',
      action: 'added',
      installationId,
      repositoryIds: repositories.map((r) => r.id),
      sender,
    });
  }

  /** The pre-receive decision: GitHub's refusal lines, empty when the push may proceed. */
  refusals(repository: Repository, updates: readonly RefUpdate[], pusher: Pusher): string[] {
    const lines: string[] = [];
    for (const update of updates) {
      const branch = /^refs\/heads\/(.+)$/.exec(update.ref)?.[1];
      const protection = branch ? repository.protection.get(branch) : undefined;
      if (!branch || !protection || pusher.kind === 'admin') continue;
      const bypass = pusher.kind === 'app' && (protection.bypassAppIds ?? []).includes(pusher.appId);
      const reasons: string[] = [];
      if (update.newSha === ZERO_SHA) reasons.push('Cannot delete this branch');
      else if (update.fastForward === false) reasons.push('Cannot force-push to this branch');
      else if (!bypass) {
        if (protection.restrictUpdates) reasons.push("You're not authorized to push to this branch.");
        for (const context of protection.requiredStatusChecks ?? [])
          if (this.contextState(repository, update.newSha, context) !== 'success')
            reasons.push(`Required status check "${context}" is expected.`);
      }
      if (reasons.length > 0)
        lines.push(
          `error: GH006: Protected branch update failed for ${update.ref}.`,
          ...reasons.map((r) => `error: ${r}`),
        );
    }
    return lines;
  }

  /**
   * post-receive: every branch or tag update is announced (`push`); PR heads follow their branches
   * (`synchronize`), a deleted head branch closes its PR, and PRs whose head reached their base are
   * merged (`closed`, merged).
   */
  async afterPush(repository: Repository, updates: readonly RefUpdate[], pusher: Pusher): Promise<void> {
    repository.pushedAt = new Date();
    const sender = actorOf(pusher);
    for (const update of updates) {
      if (/^refs\/(heads|tags)\//.test(update.ref)) {
        const forced =
          update.oldSha !== ZERO_SHA &&
          update.newSha !== ZERO_SHA &&
          !(await this.isAncestor(repository, update.oldSha, update.newSha));
        this.emit({
          kind: 'push',
          repositoryId: repository.id,
          ref: update.ref,
          before: update.oldSha,
          after: update.newSha,
          forced,
          sender,
        });
      }
      const branch = /^refs\/heads\/(.+)$/.exec(update.ref)?.[1];
      if (!branch) continue;
      for (const pr of this.pullsOf(repository)) {
        if (pr.state !== 'open') continue;
        if (pr.headBranch === branch && update.newSha !== ZERO_SHA && pr.headSha !== update.newSha) {
          const before = pr.headSha;
          pr.headSha = update.newSha;
          pr.updatedAt = new Date();
          await this.run(repository.bare, ['update-ref', `refs/pull/${pr.number}/head`, update.newSha]);
          this.emit({ ...this.pullEvent(pr, sender), action: 'synchronize', before, after: update.newSha });
        } else if (pr.headBranch === branch && update.newSha === ZERO_SHA) {
          this.closePullRequest(pr, sender);
        }
      }
      if (update.newSha === ZERO_SHA) continue;
      for (const pr of this.pullsOf(repository)) {
        if (pr.state !== 'open' || pr.base !== branch) continue;
        if (await this.isAncestor(repository, pr.headSha, update.newSha))
          this.markMerged(pr, sender, update.newSha);
      }
    }
  }

  /** The combined state of one context on `sha`, from check runs and statuses (latest wins). */
  contextState(
    repository: Repository,
    sha: string,
    context: string,
  ): 'success' | 'failure' | 'pending' | 'missing' {
    const run = this.checkRunsOf(repository, sha)
      .filter((r) => r.name === context)
      .at(-1);
    if (run) {
      if (run.status !== 'completed') return 'pending';
      return run.conclusion === 'success' || run.conclusion === 'neutral' || run.conclusion === 'skipped'
        ? 'success'
        : 'failure';
    }
    const status = this.latestStatuses(repository, sha).find((s) => s.context === context);
    if (!status) return 'missing';
    return status.state === 'success' ? 'success' : status.state === 'pending' ? 'pending' : 'failure';
  }

  checkRunsOf(repository: Repository, sha: string): CheckRun[] {
    void repository;
    return this.checkRuns.filter((r) => r.headSha === sha);
  }

  latestStatuses(repository: Repository, sha: string): CommitStatus[] {
    void repository;
    const latest = new Map<string, CommitStatus>();
    for (const status of this.statuses) if (status.sha === sha) latest.set(status.context, status);
    return [...latest.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
  }

  /** `sha` of a ref name, branch name or sha; null when it names no commit. */
  async resolveCommit(repository: Repository, ref: string): Promise<string | null> {
    const candidates = /^[0-9a-f]{40}$/.test(ref) ? [ref] : [ref, `refs/heads/${ref}`, `refs/tags/${ref}`];
    for (const candidate of candidates) {
      if (candidate.startsWith('-')) continue;
      const result = await this.git(
        ['rev-parse', '--verify', '--quiet', '--end-of-options', `${candidate}^{commit}`],
        {
          dir: repository.bare,
        },
      );
      if (result.exitCode === 0) return result.stdout.trim();
    }
    return null;
  }

  /** The tree entry at `path` in `commit` (`git ls-tree`), or null when there is none. */
  async treeEntry(repository: Repository, commit: string, path: string): Promise<TreeEntry | null> {
    return (await this.lsTree(repository, commit, path)).find((e) => e.path === path) ?? null;
  }

  /** The entries of the directory `path` in `commit`, with their full paths. */
  async treeEntries(repository: Repository, commit: string, path: string): Promise<TreeEntry[]> {
    return this.lsTree(repository, commit, `${path}/`);
  }

  private async lsTree(repository: Repository, commit: string, path: string): Promise<TreeEntry[]> {
    const result = await this.git(['ls-tree', '-l', '-z', '--full-tree', commit, '--', path], {
      dir: repository.bare,
    });
    if (result.exitCode !== 0) return [];
    return result.stdout
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode = '', type = '', sha = '', size = '-'] = line.slice(0, tab).split(/\s+/);
        return { mode, type, sha, size: size === '-' ? 0 : Number(size), path: line.slice(tab + 1) };
      });
  }

  /** The bytes of a blob (binary-safe, unlike `run`). */
  readBlob(repository: Repository, sha: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        ['cat-file', 'blob', sha],
        { cwd: repository.bare, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
        (error, stdout) =>
          error ? reject(new Error(`fakehub: git cat-file failed for ${sha}`)) : resolve(stdout),
      );
    });
  }

  async isAncestor(repository: Repository, ancestor: string, descendant: string): Promise<boolean> {
    const result = await this.git(['merge-base', '--is-ancestor', ancestor, descendant], {
      dir: repository.bare,
    });
    return result.exitCode === 0;
  }

  /** The tree of merging `head` into `base`, or null on a conflict. */
  async mergeTree(repository: Repository, base: string, head: string): Promise<string | null> {
    const result = await this.git(['merge-tree', '--write-tree', '--no-messages', base, head], {
      dir: repository.bare,
    });
    if (result.exitCode === 1) return null;
    if (result.exitCode !== 0) throw new Error(`fakehub: git merge-tree failed: ${result.stderr.trim()}`);
    return result.stdout.trim().split('\n')[0]!;
  }

  async run(dir: string, args: string[], input?: string, env?: Record<string, string>): Promise<string> {
    const result = await this.git(args, { dir, input, env });
    if (result.exitCode !== 0) throw new Error(`fakehub: git ${args[0]} failed: ${result.stderr.trim()}`);
    return result.stdout.trim();
  }

  async dispose(): Promise<void> {
    await rm(this.gitRoot, { recursive: true, force: true });
  }
}
