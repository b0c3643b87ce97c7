/**
 * The real worker a queue benchmark runs: the bundled workflows and the production activities on the
 * benchmark stack's git host and pool, polling `taskQueue`, with a client on the same Temporal. Shared by
 * `bench:queue`, `bench:continuous` and `bench:reads`, so they measure the same worker.
 *
 * Invariant: `close()` stops the worker and both connections, nothing of the stack's.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { BenchStack } from './stack';
import { sharedProcessBroker } from '../../test/support/shared-brokers';

export interface BenchWorker {
  client: Client;
  close(): Promise<void>;
}

export async function startBenchWorker(stack: BenchStack, taskQueue: string): Promise<BenchWorker> {
  const { address, code, pool, fx } = stack;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { code },
    activities: createActivities({
      workerIdentity: 'bench',
      gitHost: fx.host,
      // As the worker does: the bundles' git from a broker, not this large process.
      processes: sharedProcessBroker(),
      client,
      taskQueue,
      pool,
      allowPrivateWebhookUrls: false,
    }),
  });
  const running = worker.run();
  return {
    client,
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}
