/**
 * The merge-queue use cases over Temporal: every queue is a workflow (workflows/ids.ts names it), reads
 * are queries, changes are updates. Calls are scoped to the caller's organisation through the workflow id.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { queueWorkflowId } from '../../workflows/ids';
import type { MergeQueueService } from '../routes/merge-queue';
import type { TemporalGateway } from './client';

export function createMergeQueueService(temporal: TemporalGateway): MergeQueueService {
  return {
    async getQueue(org, key) {
      const workflowId = queueWorkflowId({ organisationId: org.id, ...key });
      try {
        await temporal.call('getQueue', () => temporal.client.workflow.getHandle(workflowId).describe());
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
      // The queue workflow (issue 4) answers the getQueue query; until it exists no queue can be created.
      return null;
    },
  };
}
