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
 *    silently (a team may still run another bot that answers `/trunk`).
 * 2. The author's collaborator permission (`GET /collaborators/{u}/permission`) must be admin or write
 *    (GitHub reports maintain as write); anything else, or no collaborator at all, gets a reply saying
 *    so and nothing is submitted. An invalid command (pr-commands.ts) gets a reply with what is
 *    accepted.
 * 3. `merge` is the queue's `submitPullRequest` update and `cancel` its `cancelPullRequest` update,
 *    under an update id derived from the comment's id: the queue answers a known update id with its
 *    first result, so a comment acted on twice (a redelivery under a new delivery id, the API and the
 *    reconciliation both) applies once, and a later `/trunk cancel` is never undone by a replayed
 *    `/trunk merge`. A submit then waits (bounded, `admissionTimeoutMs`) for the queue to admit the PR
 *    (queue-client/admission.ts).
 * 4. Acknowledgement: a `+1` reaction once applied (`eyes` when the admission is still pending at the
 *    bound); a refusal or failure is one plain sentence in a reply instead. Reactions and replies are
 *    best effort: their failure is logged and noted in the outcome, never thrown.
 *
 * The outcome (recorded on the delivery's row) says which of these happened. Every Temporal call goes
 * through the queue client, with its deadline, so an outage cannot hold the API's shutdown beyond it;
 * the queue client's errors are worded here: a missing queue is the no-queue reply, the queue's
 * refusal its own sentence, anything else "could not reach the merge queue".
 */
import { z } from 'zod';
import {
  cancelUpdate,
  getQueueQuery,
  submitUpdate,
  type AdmissionState,
  type RepositoryKey,
} from '../../contract';
import { isQueueProblem, type QueueClient } from '../../queue-client';
import type { RoutedComment } from './hint-routing';
import { ACCEPTED_COMMANDS, quoted, type PrCommand } from './pr-commands';
import { GitHubApiError, type GitHubClients, type GitHubRest } from '../app/rest-client';

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
  /** How long a submit waits for the queue to admit the PR (default 20 s). */
  admissionTimeoutMs?: number;
  onError: (err: unknown, message: string) => void;
}

/** GitHub's base roles that may command the queue (`permission` maps maintain to write). */
const MAY_COMMAND: ReadonlySet<string> = new Set(['admin', 'write']);

/** The queue update id of a comment's command: one per comment, whatever delivered it. */
export const commandUpdateId = (commentId: number, command: PrCommand): string =>
  `issueComment/${commentId}/${command.kind}`;

const PullBase = z.object({ base: z.object({ ref: z.string().min(1).max(255) }) });
const Permission = z.object({ permission: z.string().max(40), role_name: z.string().max(100) });

export function createPrCommandHandler(deps: PrCommandHandlerDeps): PrCommandHandler {
  const admissionTimeoutMs = deps.admissionTimeoutMs ?? 20_000;
  const { queues } = deps;

  /** The PR's base branch, or null when GitHub has no such PR. */
  async function baseOf(rest: GitHubRest, target: CommandTarget, pr: number): Promise<string | null> {
    try {
      const { data } = await rest.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        owner: target.repository.owner,
        repo: target.repository.name,
        pull_number: pr,
      });
      return PullBase.parse(data).base.ref;
    } catch (err) {
      if (err instanceof GitHubApiError && err.status === 404) return null;
      throw err;
    }
  }

  /** The organisation's running queue of `branch` and its settings, under the first spelling that has one. */
  const queueOf = (target: CommandTarget, branch: string) =>
    queues.findQueue(
      'getQueue',
      target.spellings.map((repo) => ({ organisationId: target.organisationId, repo, targetBranch: branch })),
      async (q) => (await q.query(getQueueQuery)).settings,
    );

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

      /** Posts one sentence on the PR; the outcome's suffix says whether it was posted. */
      const reply = async (sentence: string): Promise<string> => {
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

      const base = await baseOf(rest, target, comment.pr);
      if (base === null) return 'failed: pull request not found';
      const noQueue = async () =>
        `no merge queue for ${base} ${await reply(
          `railyard has no merge queue for \`${quoted(base)}\` in ${owner}/${name}, so ${said} did nothing.`,
        )}`;
      const queue = await queueOf(target, base);
      if (queue === null) return noQueue();
      if (!queue.value.commandsEnabled) return `commands are off for the queue of ${base}`;

      const access = await permissionOf(rest, target, comment.author);
      if (!MAY_COMMAND.has(access.permission)) {
        const has = access.role === 'none' ? 'no access' : `${access.role} access`;
        return `refused: ${comment.author} has ${has} ${await reply(
          `@${comment.author} cannot command the merge queue: that needs write access to ${owner}/${name}, and GitHub reports ${has}.`,
        )}`;
      }
      if (comment.parse.kind === 'invalid')
        return `invalid command ${await reply(
          `${said} was not applied: ${comment.parse.reason}; railyard accepts ${ACCEPTED_COMMANDS}.`,
        )}`;

      const command = comment.parse.command;
      const updateId = commandUpdateId(comment.id, command);
      const refused = async (err: unknown): Promise<string> => {
        if (isQueueProblem(err, 'queue_not_found')) return noQueue();
        if (isQueueProblem(err, 'rejected'))
          return `rejected by the queue ${await reply(`${said} was not applied: ${err.problem.message}`)}`;
        deps.onError(err, `could not apply ${command.kind} of comment ${comment.id} to ${queue.workflowId}`);
        return `failed: the queue did not answer ${await reply(
          `railyard could not reach the merge queue of \`${quoted(base)}\` just now, so ${said} was not applied; comment it again in a minute.`,
        )}`;
      };

      switch (command.kind) {
        case 'cancel': {
          try {
            await queues.updateQueue('cancelPullRequest', queue.workflowId, cancelUpdate, {
              updateId,
              args: [{ pr: comment.pr }],
            });
          } catch (err) {
            return refused(err);
          }
          return `cancelled #${comment.pr} in ${base}${await react('+1')}`;
        }
        case 'merge': {
          let submitted;
          try {
            submitted = await queues.updateQueue('submitPullRequest', queue.workflowId, submitUpdate, {
              updateId,
              args: [{ pr: comment.pr, priority: command.priority, noBatch: command.noBatch }],
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
              return `rejected by the queue ${await reply(`${said} was not applied: ${admitted.message}`)}`;
          }
        }
      }
    },
  };
}
