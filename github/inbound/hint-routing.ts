/**
 * Which merge queues a GitHub webhook delivery concerns, and what to tell them: a pure function of the
 * event name and the payload (docs/github.md "Webhooks and reconciliation").
 *
 * Rules:
 * - `pull_request` opened / synchronize / closed / reopened / edited / ready_for_review /
 *   converted_to_draft and `pull_request_review` submitted / dismissed → `{kind:'pull_request', pr}`
 *   for the queues of the repository.
 * - `push` to `refs/heads/<b>` → `{kind:'target', branch: b}` for the queues of the repository whose
 *   target branch is b. Tags and other refs are not routed, nor are pushes to test branches
 *   (`railyard-merge/…`, `trunk-merge/…`): they are the queue's own, never a target.
 * - `check_run` and `check_suite` (their `head_sha`) and `status` (its `sha`) →
 *   `{kind:'checks', sha}` for every queue of the repository.
 * - `issue_comment` `created` on a pull request (the payload's `issue.pull_request` is present) whose
 *   body carries a command (pr-commands.ts) → `{kind:'command'}` with the comment's id, author and
 *   parsed command, for the command handler (pr-command-handler.ts). Comments by bots (railyard's own
 *   replies among them), comments on issues, comments without a command, and `edited` / `deleted`
 *   comments are `not_routed`: an edited or deleted comment never runs a command.
 * - Any other event or action is `not_routed`. A routed event whose payload lacks a field it needs, or
 *   holds one outside the bounds below, is `invalid` (recorded as a failure, never thrown).
 *
 * Payloads are read with zod picking only the fields used, each bounded: a repository is
 * `owner/name` with the git layer's name rules, a branch follows git's ref rules (≤ 255 characters),
 * a sha is a full lower-case object id, a PR number a non-negative 32-bit integer, the
 * installation and comment ids positive safe integers, and a login GitHub's characters (a bot's ends
 * in `[bot]`). Hints carry no state (contract HostHint), so
 * routing a delivery twice, late or out of order can only cost a re-read.
 */
import { z } from 'zod';
import { checkBranchName, checkSha, TEST_BRANCH_PREFIX } from '../../git/names';
import type { HostHint } from '../../contract';
import { parseComment, type CommentParse } from './pr-commands';

/** A repository as GitHub names it in a payload: `owner/name`. */
export interface PayloadRepository {
  owner: string;
  name: string;
}

/** A PR comment that carries a command (valid or not). */
export interface RoutedComment {
  /** The comment's id on GitHub: the queue update's id derives from it, so it applies once. */
  id: number;
  /** The PR commented on. */
  pr: number;
  /** Login of the comment's author. */
  author: string;
  /**
   * When GitHub created the comment (its `created_at`, ISO 8601): a `/trunk merge` is bound to the
   * head the PR had then (pr-command-handler.ts), so a push after it needs a new command.
   */
  createdAt: string;
  parse: Exclude<CommentParse, { kind: 'none' }>;
}

export type Routing =
  | { kind: 'hint'; installationId: number; repository: PayloadRepository; hint: HostHint }
  | { kind: 'command'; installationId: number; repository: PayloadRepository; comment: RoutedComment }
  | { kind: 'not_routed' }
  | { kind: 'invalid'; reason: string };

/** Prefixes of test branches (railyard's own and Trunk's): pushes there are never target pushes. */
export const TEST_BRANCH_PREFIXES: readonly string[] = [TEST_BRANCH_PREFIX, 'trunk-merge/'];

const PULL_REQUEST_ACTIONS: ReadonlySet<string> = new Set([
  'opened',
  'synchronize',
  'closed',
  'reopened',
  'edited',
  'ready_for_review',
  'converted_to_draft',
]);
const REVIEW_ACTIONS: ReadonlySet<string> = new Set(['submitted', 'dismissed']);

const Segment = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/)
  .refine((s) => s !== '.' && s !== '..' && !s.startsWith('-'));
const Sha = z.string().refine((s) => checkSha(s).ok);

const Common = z.object({
  installation: z.object({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
  repository: z.object({
    full_name: z
      .string()
      .max(201)
      .transform((s, ctx) => {
        const [owner, name, ...rest] = s.split('/');
        const o = Segment.safeParse(owner);
        const n = Segment.safeParse(name);
        if (rest.length > 0 || !o.success || !n.success) {
          ctx.addIssue({ code: 'custom', message: 'not owner/name' });
          return z.NEVER;
        }
        return { owner: o.data, name: n.data };
      }),
  }),
});

const Action = z.object({ action: z.string().max(100) });
const PullRequest = Common.extend({
  pull_request: z.object({ number: z.number().int().min(0).max(4_294_967_295) }),
});
const Push = Common.extend({ ref: z.string().max(300) });
const CheckRun = Common.extend({ check_run: z.object({ head_sha: Sha }) });
const CheckSuite = Common.extend({ check_suite: z.object({ head_sha: Sha }) });
const Status = Common.extend({ sha: Sha });
const Login = z
  .string()
  .max(120)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*(\[bot\])?$/);
const IssueComment = Common.extend({
  issue: z.object({
    number: z.number().int().min(0).max(4_294_967_295),
    pull_request: z.object({}).nullish(),
  }),
  comment: z.object({
    id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    // Bounded by the parser (pr-commands.ts MAX_COMMENT_LENGTH), which ignores longer bodies.
    body: z.string().nullish(),
    user: z.object({ login: Login, type: z.string().max(40) }).nullish(),
    created_at: z
      .string()
      .max(40)
      .refine((t) => !Number.isNaN(Date.parse(t))),
  }),
});

const invalid = (event: string): Routing => ({
  kind: 'invalid',
  reason: `payload lacks the ${event} fields`,
});

function routed<T extends z.infer<typeof Common>>(
  schema: z.ZodType<T>,
  event: string,
  payload: unknown,
  hintOf: (data: T) => HostHint | null,
): Routing {
  const p = schema.safeParse(payload);
  if (!p.success) return invalid(event);
  const hint = hintOf(p.data);
  if (hint === null) return { kind: 'not_routed' };
  return {
    kind: 'hint',
    installationId: p.data.installation.id,
    repository: p.data.repository.full_name,
    hint,
  };
}

/** The branch a push moved, or null for tags, other refs and test branches. */
export function pushedTargetBranch(ref: string): string | null {
  if (!ref.startsWith('refs/heads/')) return null;
  const branch = ref.slice('refs/heads/'.length);
  if (!checkBranchName(branch).ok) return null;
  return TEST_BRANCH_PREFIXES.some((prefix) => branch.startsWith(prefix)) ? null : branch;
}

export function routeDelivery(event: string, payload: unknown): Routing {
  switch (event) {
    case 'pull_request':
    case 'pull_request_review': {
      const action = Action.safeParse(payload);
      if (!action.success) return invalid(event);
      const actions = event === 'pull_request' ? PULL_REQUEST_ACTIONS : REVIEW_ACTIONS;
      if (!actions.has(action.data.action)) return { kind: 'not_routed' };
      return routed(PullRequest, event, payload, (d) => ({
        kind: 'pull_request',
        pr: d.pull_request.number,
      }));
    }
    case 'push':
      return routed(Push, event, payload, (d) => {
        const branch = pushedTargetBranch(d.ref);
        return branch === null ? null : { kind: 'target', branch };
      });
    case 'check_run':
      return routed(CheckRun, event, payload, (d) => ({ kind: 'checks', sha: d.check_run.head_sha }));
    case 'check_suite':
      return routed(CheckSuite, event, payload, (d) => ({ kind: 'checks', sha: d.check_suite.head_sha }));
    case 'status':
      return routed(Status, event, payload, (d) => ({ kind: 'checks', sha: d.sha }));
    case 'issue_comment':
      return routeComment(payload);
    default:
      return { kind: 'not_routed' };
  }
}

/** `issue_comment`: only a created comment on a PR, by a person, carrying a command. */
function routeComment(payload: unknown): Routing {
  const action = Action.safeParse(payload);
  if (!action.success) return invalid('issue_comment');
  if (action.data.action !== 'created') return { kind: 'not_routed' };
  const p = IssueComment.safeParse(payload);
  if (!p.success) return invalid('issue_comment');
  const { issue, comment } = p.data;
  if (!issue.pull_request || !comment.user || comment.user.type === 'Bot') return { kind: 'not_routed' };
  const parse = parseComment(comment.body ?? '');
  if (parse.kind === 'none') return { kind: 'not_routed' };
  return {
    kind: 'command',
    installationId: p.data.installation.id,
    repository: p.data.repository.full_name,
    comment: {
      id: comment.id,
      pr: issue.number,
      author: comment.user.login,
      createdAt: comment.created_at,
      parse,
    },
  };
}
