/**
 * Acting on a command in a PR comment (docs/github.md "Commands"), for the organisation that holds the
 * repository through the delivery's linked installation (delivery-actions.ts decides that first). It
 * runs in the API right after a delivery is stored and in the worker's reconciliation for rows the API
 * left unhandled, so it reaches the queue only through the queue client (queue-client/) and the workflow
 * contract.
 *
 * Steps, each a reason to stop:
 * 1. The PR's base branch (`GET /pulls/{n}`) names the queue: the organisation's queue workflow of that
 *    branch, under the spellings a queue of the repository may use (as hints do). None running → a
 *    reply "no merge queue for <branch>". A queue whose `commandsEnabled` is false ignores commands
 *    silently (a team may still run another bot that answers `/trunk`). The workflow is asked, within
 *    LOOKUP_TIMEOUT_MS (longer than a workflow task, which a query waits behind); a queue whose workflow
 *    does not answer in time is taken as the read projection last stored it, if it holds one
 *    (github/store/projected-queue.ts: settings possibly a change behind, see there).
 * 2. The author's collaborator permission (`GET /collaborators/{u}/permission`) must be admin or write
 *    (GitHub reports maintain as write); anything else, or no collaborator at all, gets a reply saying
 *    so and nothing is submitted. An invalid command (pr-commands.ts) gets a reply with what is
 *    accepted.
 * 3. `merge` is bound to the commit the comment saw (as bors binds `r+` to the head it saw): the PR
 *    read in step 1 gives its head and `updated_at`, which GitHub moves on every push (and on edits
 *    and comments). Updated after the comment was created → something happened since, possibly a
 *    push, and the command is refused with a reply asking for a new one (unless the PR is queued at
 *    that very head already: a comment acted on twice stays applied once); otherwise the head read is
 *    the head the comment saw, and the submission carries it (`expectedHeadSha`): the queue admits the
 *    PR only at that head and cancels it on a later push (workflows/queue/admission.ts), so the commit
 *    tested, and its `.railyard/merge-queue.json`, are the ones the maintainer commented on. GitHub's
 *    times have whole seconds, so a push in the same second as the comment is not told apart.
 * 4. `merge` is the queue's `submitPullRequest` update and `cancel` its `cancelPullRequest` update,
 *    under an update id derived from the comment's id: the queue answers a known update id with its
 *    first result, so a comment acted on twice (a redelivery under a new delivery id, the API and the
 *    reconciliation both) applies once, and a later `/trunk cancel` is never undone by a replayed
 *    `/trunk merge`. The update waits up to UPDATE_TIMEOUT_MS (a killed worker's task and its replay
 *    elsewhere), and a miss is answered without claiming the command was not applied: the server may
 *    still apply an update it admitted. A submit then waits (bounded, `admissionTimeoutMs`) for the queue to admit the PR
 *    (queue-client/admission.ts).
 * 5. Acknowledgement: a `+1` reaction once applied (`eyes` when the admission is still pending at the
 *    bound); a refusal or failure is one plain sentence in a reply instead, within the reply budget
 *    (reply-budget.ts: one per PR and kind of refusal per window, one per PR for all commenters
 *    without access), so commenters cannot make the App post without bound. Text railyard did not
 *    write (branch names, the queue's messages) is made inert (github/presentation/markdown.ts).
 *    Reactions and replies are best effort: their failure is logged and noted in the outcome, never
 *    thrown.
 *
 * The outcome (recorded on the delivery's row) says which of these happened. Every Temporal call goes
 * through the queue client, with its deadline, so an outage cannot hold the API's shutdown beyond it;
 * the queue client's errors are worded here: a missing queue is the no-queue reply, the queue's
 * refusal its own sentence, anything else "could not reach the merge queue" — finding the queue as well
 * as updating it, so a command whose queue could not be read still gets its reply.
 */
import { z } from 'zod';
import {
  cancelUpdate,
  getQueueQuery,
  queueWorkflowId,
  submitUpdate,
  type AdmissionState,
  type QueueKey,
  type QueueSettingsSnapshot,
  type RepositoryKey,
} from '../../contract';
import { isQueueProblem, type QueueClient } from '../../queue-client';
import type { ProjectedQueues } from '../store/projected-queue';
import type { RoutedComment } from './hint-routing';
import { ACCEPTED_COMMANDS, quoted, type PrCommand } from './pr-commands';
import { GitHubApiError, type GitHubClients, type GitHubRest } from '../app/rest-client';
import { inert, mention } from '../presentation/markdown';
import { createReplyBudget, type ReplyBudget, type ReplyKind } from './reply-budget';

/** The repository a command concerns, as delivery-actions.ts resolved it. */
export interface CommandTarget {
  organisationId: string;
  installationId: number;
  /** The repository as GitHub's payload names it (REST paths). */
  repository: { owner: string; name: string };
  /** Spellings a queue of the repository may have been created with (its workflow id holds one). */
  spellings: readonly RepositoryKey[];
}

export interface PrCommandHandler {
  /** Acts on the comment's command; the outcome for the delivery's row. Throws only on errors. */
  run(target: CommandTarget, comment: RoutedComment): Promise<string>;
}

export interface PrCommandHandlerDeps {
  queues: Pick<QueueClient, 'findQueue' | 'updateQueue' | 'waitForAdmission'>;
  clients: Pick<GitHubClients, 'forInstallation'>;
  /** The read projection's view of a queue (github/store/projected-queue.ts), when the workflow is slow. */
  projected?: ProjectedQueues;
  /** Each lookup's deadline (default LOOKUP_TIMEOUT_MS; never below the queue client's call timeout). */
  lookupTimeoutMs?: number;
  /** Each update's deadline (default UPDATE_TIMEOUT_MS; never below the queue client's call timeout). */
  updateTimeoutMs?: number;
  /** How long a submit waits for the queue to admit the PR (default 20 s). */
  admissionTimeoutMs?: number;
  /** How often refusals are answered with a reply (default: createReplyBudget()). */
  replies?: ReplyBudget;
  onError: (err: unknown, message: string) => void;
}

/** What a command needs of its queue: its settings, and the head the PR is queued at (null: not queued). */
interface QueueFacts {
  settings: QueueSettingsSnapshot;
  queuedAt: string | null;
}

/**
 * The queue lookup's deadline. A query is answered by a worker after the queue's workflow task in flight,
 * which may take up to its 10 s timeout (a worker killed mid-task), and after a dead worker's sticky
 * queue is given up on (the 10 s sticky schedule-to-start timeout): the API's 5 s call deadline is
 * shorter than one such task, and under load a lookup missed it (issue 27). This runs after the
 * delivery is answered, so waiting longer delays no caller.
 */
export const LOOKUP_TIMEOUT_MS = 15_000;

/**
 * The command's update's deadline. An update the server admitted is applied once a worker takes the
 * queue's task, even after the caller's deadline: with the API's 5 s a `/trunk merge` sent while a
 * worker was killed mid-task was answered "could not reach the merge queue" and then applied (issue
 * 27). 30 s covers the dead worker's task timeout (10 s), its sticky queue given up on (10 s) and the
 * replay on another worker; an update id answers once, so waiting applies nothing twice. Like the
 * lookup, this runs after the delivery is answered.
 */
export const UPDATE_TIMEOUT_MS = 30_000;

/** GitHub's base roles that may command the queue (`permission` maps maintain to write). */
const MAY_COMMAND: ReadonlySet<string> = new Set(['admin', 'write']);

/** The queue update id of a comment's command: one per comment, whatever delivered it. */
export const commandUpdateId = (commentId: number, command: PrCommand): string =>
  `issueComment/${commentId}/${command.kind}`;

const Pull = z.object({
  base: z.object({ ref: z.string().min(1).max(255) }),
  head: z.object({ sha: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/) }),
  updated_at: z
    .string()
    .max(40)
    .refine((t) => !Number.isNaN(Date.parse(t))),
});
type Pull = z.infer<typeof Pull>;

/** Whether GitHub reports the PR updated after the comment: something happened since (step 3). */
export const changedSince = (pull: Pick<Pull, 'updated_at'>, commentCreatedAt: string): boolean =>
  Date.parse(pull.updated_at) > Date.parse(commentCreatedAt);
const Permission = z.object({ permission: z.string().max(40), role_name: z.string().max(100) });

export function createPrCommandHandler(deps: PrCommandHandlerDeps): PrCommandHandler {
  const admissionTimeoutMs = deps.admissionTimeoutMs ?? 20_000;
  const lookupTimeoutMs = deps.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
  const updateTimeoutMs = deps.updateTimeoutMs ?? UPDATE_TIMEOUT_MS;
  const { queues } = deps;
  const budget = deps.replies ?? createReplyBudget();

  /** The PR's base branch, head and last update, or null when GitHub has no such PR. */
  async function pullOf(rest: GitHubRest, target: CommandTarget, pr: number): Promise<Pull | null> {
    try {
      const { data } = await rest.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner: target.repository.owner,
        repo: target.repository.name,
        pull_number: pr,
      });
      return Pull.parse(data);
    } catch (err) {
      if (err instanceof GitHubApiError && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * The organisation's running queue of `branch`, under the first spelling that has one: its settings,
   * and the head PR `pr` is queued at (null when it is not in the queue's order). The workflow is
   * asked, with a deadline longer than one workflow task; when it does not answer in time, the read
   * projection's view of that queue is the answer (github/store/projected-queue.ts), if it has one.
   */
  async function queueOf(
    target: CommandTarget,
    branch: string,
    pr: number,
  ): Promise<{ workflowId: string; value: QueueFacts } | null> {
    const keys: QueueKey[] = target.spellings.map((repo) => ({
      organisationId: target.organisationId,
      repo,
      targetBranch: branch,
    }));
    const asked = new Set<string>();
    for (const key of keys) {
      const workflowId = queueWorkflowId(key);
      if (asked.has(workflowId)) continue;
      asked.add(workflowId);
      try {
        const found = await queues.findQueue(
          'getQueue',
          [key],
          async (q) => {
            const snapshot = await q.query(getQueueQuery);
            const queued = (snapshot.enqueued ?? []).find((e) => e.pr === pr);
            return { settings: snapshot.settings, queuedAt: queued?.headSha ?? null };
          },
          { timeoutMs: lookupTimeoutMs },
        );
        if (found) return found;
      } catch (err) {
        if (!deps.projected || !isQueueProblem(err, 'unavailable', 'busy')) throw err;
        const seen = await deps.projected(key, pr);
        if (seen.kind === 'absent') throw err;
        return { workflowId, value: { settings: seen.settings, queuedAt: seen.queuedAt } };
      }
    }
    return null;
  }

  /** The author's base role on the repository; `none` when GitHub knows no such collaborator. */
  async function permissionOf(rest: GitHubRest, target: CommandTarget, login: string) {
    try {
      const { data } = await rest.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
        owner: target.repository.owner,
        repo: target.repository.name,
        username: login,
      });
      const p = Permission.parse(data);
      return { permission: p.permission, role: p.role_name };
    } catch (err) {
      if (err instanceof GitHubApiError && err.status === 404) return { permission: 'none', role: 'none' };
      throw err;
    }
  }

  /** How the submission's admission ended, or `pending` at the bound. */
  async function admission(workflowId: string, submissionId: string): Promise<AdmissionState> {
    try {
      return await queues.waitForAdmission(workflowId, submissionId, admissionTimeoutMs);
    } catch (err) {
      if (isQueueProblem(err, 'admission_timeout')) return { state: 'pending' };
      throw err;
    }
  }

  return {
    async run(target, comment) {
      const rest = await deps.clients.forInstallation(target.installationId);
      const { owner, name } = target.repository;
      const said = `\`${comment.parse.text}\``;

      /** Posts one sentence on the PR within the budget; the outcome's suffix says what happened. */
      const reply = async (kind: ReplyKind, sentence: string): Promise<string> => {
        if (!budget.take(target.installationId, `${owner}/${name}`, comment.pr, kind))
          return '(reply withheld)';
        try {
          await rest.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            owner,
            repo: name,
            issue_number: comment.pr,
            body: sentence,
          });
          return '(replied)';
        } catch (err) {
          deps.onError(err, `could not reply to comment ${comment.id} on ${owner}/${name}#${comment.pr}`);
          return '(reply failed)';
        }
      };
      const react = async (content: '+1' | 'eyes'): Promise<string> => {
        try {
          await rest.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
            owner,
            repo: name,
            comment_id: comment.id,
            content,
          });
          return '';
        } catch (err) {
          deps.onError(err, `could not react to comment ${comment.id} on ${owner}/${name}#${comment.pr}`);
          return ' (reaction failed)';
        }
      };

      const pull = await pullOf(rest, target, comment.pr);
      if (pull === null) return 'failed: pull request not found';
      const base = pull.base.ref;
      const noQueue = async () =>
        `no merge queue for ${base} ${await reply(
          'no-queue',
          `railyard has no merge queue for \`${quoted(base)}\` in ${owner}/${name}, so ${said} did nothing.`,
        )}`;
      /**
       * A queue that did not answer (a timeout, Temporal unreachable): the promised reply, reported.
       * `sent`: the update went out, and one the server admitted may still be applied after its
       * deadline, so the reply does not claim it was not.
       */
      const unreachable = async (err: unknown, doing: string, sent = false): Promise<string> => {
        deps.onError(err, doing);
        return `failed: the queue did not answer ${await reply(
          'failed',
          sent
            ? `railyard could not reach the merge queue of \`${quoted(base)}\` just now, so ${said} may not have been applied; if the pull request does not show it within a few minutes, comment it again.`
            : `railyard could not reach the merge queue of \`${quoted(base)}\` just now, so ${said} was not applied; comment it again in a minute.`,
        )}`;
      };
      let queue;
      try {
        queue = await queueOf(target, base, comment.pr);
      } catch (err) {
        // Finding the queue is the first call to Temporal: its failure gets the same reply as an update's.
        return unreachable(err, `could not find the queue of ${base} for comment ${comment.id}`);
      }
      if (queue === null) return noQueue();
      if (!queue.value.settings.commandsEnabled) return `commands are off for the queue of ${base}`;

      const access = await permissionOf(rest, target, comment.author);
      if (!MAY_COMMAND.has(access.permission)) {
        const has = access.role === 'none' ? 'no access' : `${access.role} access`;
        const who = mention(comment.author) ?? inert(comment.author, 60);
        return `refused: ${comment.author} has ${has} ${await reply(
          'no-access',
          `${who} cannot command the merge queue: that needs write access to ${owner}/${name}, and GitHub reports ${has}.`,
        )}`;
      }
      if (comment.parse.kind === 'invalid')
        return `invalid command ${await reply(
          'invalid',
          `${said} was not applied: ${comment.parse.reason}; railyard accepts ${ACCEPTED_COMMANDS}.`,
        )}`;

      const command = comment.parse.command;
      const updateId = commandUpdateId(comment.id, command);
      const refused = async (err: unknown): Promise<string> => {
        if (isQueueProblem(err, 'queue_not_found')) return noQueue();
        if (isQueueProblem(err, 'rejected'))
          return `rejected by the queue ${await reply('rejected', `${said} was not applied: ${inert(err.problem.message, 400)}`)}`;
        return unreachable(
          err,
          `could not apply ${command.kind} of comment ${comment.id} to ${queue.workflowId}`,
          true,
        );
      };

      switch (command.kind) {
        case 'cancel': {
          try {
            await queues.updateQueue('cancelPullRequest', queue.workflowId, cancelUpdate, {
              updateId,
              args: [{ pr: comment.pr }],
              timeoutMs: updateTimeoutMs,
            });
          } catch (err) {
            return refused(err);
          }
          return `cancelled #${comment.pr} in ${base}${await react('+1')}`;
        }
        case 'merge': {
          // Already queued at the head read (this comment acted on before, by the API and then the
          // reconciliation, or a later command): submitting bound to it changes no head.
          if (changedSince(pull, comment.createdAt) && queue.value.queuedAt !== pull.head.sha)
            return `refused: the pull request changed after the comment ${await reply(
              'stale',
              `${said} was not applied: the pull request changed after that comment (a push, an edit or another comment), and railyard queues only the commit a command was given for. Its head is now ${pull.head.sha}; comment \`/trunk merge\` again to queue it.`,
            )}`;
          let submitted;
          try {
            submitted = await queues.updateQueue('submitPullRequest', queue.workflowId, submitUpdate, {
              updateId,
              args: [
                {
                  pr: comment.pr,
                  priority: command.priority,
                  noBatch: command.noBatch,
                  expectedHeadSha: pull.head.sha,
                },
              ],
              timeoutMs: updateTimeoutMs,
            });
          } catch (err) {
            return refused(err);
          }
          let admitted: AdmissionState;
          try {
            admitted = await admission(queue.workflowId, submitted.submissionId);
          } catch (err) {
            return refused(err);
          }
          const what = `${submitted.resubmitted ? 'resubmitted' : 'submitted'} #${comment.pr} to ${base}`;
          switch (admitted.state) {
            case 'settled':
              return `${what}${await react('+1')}`;
            case 'pending':
              return `${what}, admission pending${await react('eyes')}`;
            case 'rejected':
              return `rejected by the queue ${await reply('rejected', `${said} was not applied: ${inert(admitted.message, 400)}`)}`;
          }
        }
      }
    },
  };
}
