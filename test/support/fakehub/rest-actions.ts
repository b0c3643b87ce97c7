/**
 * fakehub's GitHub Actions runs, as far as railyard reads them: `GET /repos/{o}/{r}/actions/runs/{id}`
 * (the check of `x-forked-workflow-run-id`, github/inbound/forked-runs.ts). rest.ts spreads these
 * handlers into its own.
 *
 * A test records a run with `addWorkflowRun(hub, …)`: its event, status, head sha, the PRs GitHub
 * lists for it, and, for a fork's run, the fork it came from (a repository the fake does not host:
 * forks are not simulated otherwise, so it only appears as the run's `head_repository`). Rules, as
 * GitHub: 404 for an unknown run, a run of another repository, or a repository the token's
 * installation does not cover; the body is the `workflow-run` schema (checked by the contract).
 */
import { repositoryJson, userJson } from './payloads';
import type { RestAnswer, RestContext, RestRequest } from './rest';
import type { FakeHub } from './server';
import type { FakeHubState, Repository } from './state';

export interface WorkflowRunInput {
  owner: string;
  repo: string;
  headSha: string;
  /** Default `pull_request`. */
  event?: string;
  /** Default `in_progress`. */
  status?: 'queued' | 'in_progress' | 'completed';
  /** The fork the run's head came from; absent: the repository itself. */
  fork?: { owner: string; name: string };
  /** PR numbers GitHub lists on the run (it lists none for a fork's run). */
  pullRequests?: number[];
}

interface WorkflowRun extends Required<Omit<WorkflowRunInput, 'fork'>> {
  id: number;
  repositoryId: number;
  fork: { owner: string; name: string } | null;
  createdAt: Date;
}

const runsOf = new WeakMap<FakeHubState, Map<number, WorkflowRun>>();
let nextRunId = 7_000_000_001;

/** Records a workflow run on the fake; returns its id (what Actions exposes as `github.run_id`). */
export function addWorkflowRun(hub: FakeHub, input: WorkflowRunInput): number {
  const repository = hub.state.repository(input.owner, input.repo);
  if (!repository) throw new Error(`fakehub has no repository ${input.owner}/${input.repo}`);
  const runs = runsOf.get(hub.state) ?? new Map<number, WorkflowRun>();
  runsOf.set(hub.state, runs);
  const id = nextRunId++;
  runs.set(id, {
    id,
    owner: repository.owner,
    repo: repository.name,
    repositoryId: repository.id,
    headSha: input.headSha,
    event: input.event ?? 'pull_request',
    status: input.status ?? 'in_progress',
    pullRequests: input.pullRequests ?? [],
    fork: input.fork ?? null,
    createdAt: new Date(),
  });
  return id;
}

const DOCS = 'https://docs.github.com/rest';
const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function runJson(ctx: RestContext, repo: Repository, run: WorkflowRun) {
  const ownerType = ctx.state.installations.get(repo.installationId)?.accountType ?? 'Organization';
  const full = `${repo.owner}/${repo.name}`;
  const url = `${ctx.base}/repos/${full}/actions/runs/${run.id}`;
  const repository = repositoryJson(ctx.base, repo, ownerType);
  // A fork is another repository: its own id, name and owner, `fork: true`.
  const head = run.fork
    ? {
        ...repositoryJson(
          ctx.base,
          { ...repo, id: repo.id + 1_000_000, owner: run.fork.owner, name: run.fork.name },
          'User',
        ),
        fork: true,
      }
    : repository;
  return {
    id: run.id,
    name: 'CI',
    node_id: `WFR_${run.id}`,
    check_suite_id: run.id + 1,
    check_suite_node_id: `CS_${run.id + 1}`,
    head_branch: 'main',
    head_sha: run.headSha,
    path: '.github/workflows/ci.yml',
    run_number: run.id % 1000,
    run_attempt: 1,
    event: run.event,
    display_title: 'CI',
    status: run.status,
    conclusion: run.status === 'completed' ? 'success' : null,
    workflow_id: 1,
    url,
    html_url: `${ctx.base}/${full}/actions/runs/${run.id}`,
    pull_requests: run.pullRequests.map((number) => ({
      id: number,
      number,
      url: `${ctx.base}/repos/${full}/pulls/${number}`,
      head: {
        ref: 'topic',
        sha: run.headSha,
        repo: { id: head.id as number, url: head.url as string, name: head.name as string },
      },
      base: {
        ref: 'main',
        sha: run.headSha,
        repo: { id: repo.id, url: repository.url as string, name: repo.name },
      },
    })),
    created_at: iso(run.createdAt),
    updated_at: iso(run.createdAt),
    actor: userJson(ctx.base, 'contributor'),
    triggering_actor: userJson(ctx.base, 'contributor'),
    run_started_at: iso(run.createdAt),
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${ctx.base}/repos/${full}/check-suites/${run.id + 1}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${ctx.base}/repos/${full}/actions/workflows/1`,
    head_commit: {
      id: run.headSha,
      tree_id: run.headSha,
      message: 'change',
      timestamp: iso(run.createdAt),
      author: { name: 'contributor', email: 'contributor@example.com' },
      committer: { name: 'contributor', email: 'contributor@example.com' },
    },
    repository,
    head_repository: head,
  };
}

export const actionsHandlers: Record<string, (ctx: RestContext, req: RestRequest) => Promise<RestAnswer>> = {
  'actions/get-workflow-run': (ctx, req) => {
    const repo = ctx.state.repository(String(req.params.owner), String(req.params.repo));
    const run = runsOf.get(ctx.state)?.get(Number(req.params.run_id));
    if (!repo || req.installationId !== repo.installationId || run?.repositoryId !== repo.id)
      return Promise.resolve({
        status: 404,
        body: { message: 'Not Found', documentation_url: DOCS, status: '404' },
      });
    return Promise.resolve({ status: 200, body: runJson(ctx, repo, run) });
  },
};
