/**
 * Workflow ids. One queue workflow per (organisation, repository, target branch), one PR workflow per
 * (queue, PR number) and one test-run workflow per (queue, run); a resubmission after the PR left the
 * queue starts a new run of the same PR workflow id. Each component is percent-encoded, so `/` inside
 * an owner or branch name cannot make two different keys collide, while ordinary names stay readable
 * in the Temporal UI.
 *
 * The organisation leads every queue, PR and test-run id: tenancy lives in the id, and a listing by id
 * prefix (queue-client/visibility.ts) cannot reach another organisation's workflows. The strings are
 * stable: running workflows and recorded histories are found by them.
 *
 * Invariant: `parseQueueWorkflowId` is the inverse of `queueWorkflowId` and accepts nothing else: an id
 * parses only when it is exactly the id the key builds (no other encoding of the same key, no PR or
 * test-run id, no extra or missing part).
 */
import type { RepositoryKey } from './repository-key';

/** Names one queue: the queue workflow's identity. */
export interface QueueKey {
  organisationId: string;
  repo: RepositoryKey;
  targetBranch: string;
}

const enc = (s: string) => encodeURIComponent(s);

export function queueWorkflowId(key: QueueKey): string {
  return `queue/${enc(key.organisationId)}/${enc(key.repo.host)}/${enc(key.repo.owner)}/${enc(key.repo.name)}/${enc(key.targetBranch)}`;
}

/** What every queue workflow id of one organisation starts with (a listing by id prefix). */
export function queueWorkflowIdPrefix(organisationId: string): string {
  return `queue/${enc(organisationId)}/`;
}

/** The queue a workflow id names, or null when it is not exactly a queue workflow id. */
export function parseQueueWorkflowId(workflowId: string): QueueKey | null {
  const parts = workflowId.split('/');
  if (parts.length !== 6 || parts[0] !== 'queue') return null;
  let decoded: string[];
  try {
    decoded = parts.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  const [organisationId, host, owner, name, targetBranch] = decoded as [
    string,
    string,
    string,
    string,
    string,
  ];
  const key: QueueKey = { organisationId, repo: { host, owner, name }, targetBranch };
  // Only the id this module builds for the key (no other encoding of it).
  return queueWorkflowId(key) === workflowId ? key : null;
}

/** The queue id without its `queue/` kind: what PR and test-run ids hang under. */
const queuePath = (key: QueueKey) => queueWorkflowId(key).slice('queue/'.length);

export function prWorkflowId(key: QueueKey, prNumber: number): string {
  return `${prWorkflowIdPrefix(key)}${prNumber}`;
}

/** What the PR workflow id of every PR of one queue starts with (a listing by id prefix). */
export function prWorkflowIdPrefix(key: QueueKey): string {
  return `pr/${queuePath(key)}/`;
}

export function testRunWorkflowId(key: QueueKey, runId: string): string {
  return `testrun/${queuePath(key)}/${runId}`;
}

/** One delivery row, one workflow: a second start of the same delivery is "already started". */
export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook/${deliveryId}`;
}

export function pingWorkflowId(nonce: string): string {
  return `ping/${nonce}`;
}
