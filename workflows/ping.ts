/** pingWorkflow: one activity round trip, used by /readyz?worker=1 and the worker tests. */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { pong } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export async function pingWorkflow(nonce: string): Promise<string> {
  return await pong(nonce);
}
