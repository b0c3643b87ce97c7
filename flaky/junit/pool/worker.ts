/**
 * The parser thread: serves parse jobs from the pool (pool.ts) with the same parseJunit the API uses
 * in-thread, so a file parses to the same result and the same refusals (DOCTYPE, limits, malformed
 * XML) either way. Several jobs may interleave on one thread; each has its own chunk queue. It also
 * reads whole Trunk bundles (readBundle, with the JUnit parser of this thread) and matches an
 * upload's test files against its CODEOWNERS (owners-matching.ts), the other CPU-bound parts of an
 * upload.
 *
 * This module is the thread's entry point: it serves only when started by the pool (WORKER_MARK in
 * workerData), so importing it anywhere else has no effect.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { readBundle } from '../../bundle/read-bundle';
import { matchOwnersNow } from '../../owners-matching';
import { parseJunit } from '../parse';
import { inThreadJunitParser } from '../parser';
import {
  bundleToWire,
  chunkBytes,
  type FromWorker,
  type JobTask,
  resultToRowsWire,
  type ToWorker,
  toWire,
  WORKER_MARK,
} from './protocol';

type Port = Pick<MessagePort, 'on' | 'postMessage'>;

/** Answers ToWorker messages on `port` until the thread ends. */
export function serveJunitParsing(port: Port): void {
  const jobs = new Map<number, ChunkQueue>();
  const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

  const run = async (job: number, queue: ChunkQueue, task: JobTask) => {
    try {
      switch (task.kind) {
        case 'junit': {
          const options = {
            fileName: task.fileName,
            ...(task.limits === undefined ? {} : { limits: task.limits }),
          };
          // With its COPY rows encoded here (the API thread fills in the keys), their buffers moved.
          const { wire, transfer } = resultToRowsWire(await parseJunit(queue, options));
          send({ type: 'done', job, result: wire }, transfer);
          break;
        }
        case 'bundle': {
          // A bundle's chunks are bytes (the pool forwards the HTTP body as it is).
          const bundle = await readBundle(queue as AsyncIterable<Uint8Array>, {
            parser: inThreadJunitParser,
            limits: task.limits,
          });
          send({ type: 'bundle', job, bundle: bundleToWire(bundle) });
          break;
        }
      }
    } catch (err) {
      send({ type: 'error', job, error: toWire(err) });
    } finally {
      jobs.delete(job);
    }
  };

  port.on('message', (message: ToWorker) => {
    switch (message.type) {
      case 'start': {
        const queue = new ChunkQueue((bytes) => send({ type: 'ack', job: message.job, bytes }));
        jobs.set(message.job, queue);
        void run(message.job, queue, message.task);
        return;
      }
      // A job that already failed is gone: its late chunks are dropped.
      case 'chunk':
        jobs.get(message.job)?.push(message.chunk);
        return;
      case 'end':
        jobs.get(message.job)?.end();
        return;
      case 'abort':
        jobs.get(message.job)?.abort();
        jobs.delete(message.job);
        return;
      case 'matchOwners':
        // Synchronous and bounded by the request's step limit; parse jobs wait for it.
        try {
          send({ type: 'owners', job: message.job, outcome: matchOwnersNow(message.request) });
        } catch (err) {
          send({ type: 'error', job: message.job, error: toWire(err) });
        }
        return;
    }
  });
  send({ type: 'ready' });
}

/**
 * The chunks of one job as the async iterable parseJunit reads. A chunk is acknowledged when the
 * parser asks for the one after it (it has been parsed by then) or when the job ends.
 */
class ChunkQueue implements AsyncIterable<Uint8Array | string> {
  private readonly chunks: (Uint8Array | string)[] = [];
  private ended = false;
  private aborted = false;
  private waiting: (() => void) | undefined;
  private unacked = 0;

  constructor(private readonly ack: (bytes: number) => void) {}

  push(chunk: Uint8Array | string): void {
    this.chunks.push(chunk);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  abort(): void {
    this.aborted = true;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array | string> {
    try {
      for (;;) {
        this.settle();
        if (this.aborted) throw new Error('the upload was abandoned');
        const chunk = this.chunks.shift();
        if (chunk !== undefined) {
          this.unacked = chunkBytes(chunk);
          yield chunk;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.waiting = resolve));
      }
    } finally {
      this.settle();
    }
  }

  private settle(): void {
    if (this.unacked === 0) return;
    this.ack(this.unacked);
    this.unacked = 0;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}

if (parentPort !== null && (workerData as { mark?: unknown } | null)?.mark === WORKER_MARK) {
  serveJunitParsing(parentPort);
}
