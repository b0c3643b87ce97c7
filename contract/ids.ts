/**
 * Workflow ids. One queue workflow per (organisation, repository, target branch), one PR workflow per
 * (queue, PR number) and one test-run workflow per (queue, run); a resubmission after the PR left the
 * queue starts a new run of the same PR workflow id. Each component is percent-encoded, so `/` inside
 * an owner or branch name cannot make two different keys collide, while ordinary names stay readable
 * in the Temporal UI.
 *
 * The organisation leads every queue, PR and test-run id: tenancy lives in the id, and a listing by id
 * prefix (api/temporal/listing.ts) cannot reach another organisation's workflows. The strings are
 * stable: running workflows and recorded histories are found by them.
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

/** The queue id without its `queue/` kind: what PR and test-run ids hang under. */
const queuePath = (key: QueueKey) => queueWorkflowId(key).slice('queue/'.length);

export function prWorkflowId(key: QueueKey, prNumber: number): string {
  return `pr/${queuePath(key)}/${prNumber}`;
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
