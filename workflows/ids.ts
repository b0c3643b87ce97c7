/**
 * Workflow ids. One queue workflow per (organisation, repository, target branch) and one PR workflow
 * per (queue, PR number); a resubmission after the PR left the queue starts a new run of the same id.
 * Each component is percent-encoded, so `/` inside an owner or branch name cannot make two different
 * keys collide, while ordinary names stay readable in the Temporal UI.
 */
export interface RepoKey {
  host: string;
  owner: string;
  name: string;
}

export interface QueueKey {
  organisationId: string;
  repo: RepoKey;
  targetBranch: string;
}

const enc = (s: string) => encodeURIComponent(s);

export function repositoryLabel(repo: RepoKey): string {
  return `${repo.host}/${repo.owner}/${repo.name}`;
}

export function queueWorkflowId(key: QueueKey): string {
  return `queue/${enc(key.organisationId)}/${enc(key.repo.host)}/${enc(key.repo.owner)}/${enc(key.repo.name)}/${enc(key.targetBranch)}`;
}

export function prWorkflowId(key: QueueKey, prNumber: number): string {
  return `pr/${queueWorkflowId(key).slice('queue/'.length)}/${prNumber}`;
}
