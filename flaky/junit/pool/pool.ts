/**
 * startJunitParserPool: JUnit files parsed on worker threads, so the API's event loop spends its
 * time on HTTP and PostgreSQL while the CPU-bound parse runs next to it. The result is exactly what
 * parseJunit returns in-thread (the worker runs the same code) and so are the refusals.
 *
 * Invariants:
 * - Streaming stays streaming: chunks are forwarded as they arrive, with at most WINDOW_BYTES not
 *   yet parsed per file; the byte, test-case, depth and attempt limits are enforced by the parser in
 *   the worker exactly as in-thread.
 * - Error precedence matches the in-thread parse: there, the parser asks the body stream for the
 *   next chunk only once it is done with the one before, so a refusal of what was read comes before a
 *   failure of the stream that follows it. The worker acknowledges a chunk exactly when its parser
 *   asks for the next one; when the source fails, the pool waits until every chunk sent is
 *   acknowledged or refused, and a refusal wins over the source's error.
 * - A whole Trunk bundle (readBundle) streams to a thread the same way, so its zstd, tar, JUnit and
 *   protobuf decoding (the amplifying parts: a 1.9 KB bundle can unpack to 20 MiB of protobuf) never
 *   run on the event loop; its refusals are the BundleRefusals readBundle raises in-thread.
 * - CODEOWNERS matching (matchOwners) runs on the least busy thread like a parse; it is bounded by
 *   the request's step limit, so it delays the parses queued behind it by at most that.
 * - A worker that dies fails only its own jobs (500, the client may retry: uploads are idempotent)
 *   and is replaced. A replacement that cannot even start is not replaced again (no restart loop);
 *   with no thread left alive, files are parsed in-thread. close() ends every thread; parses after
 *   it are refused.
 */
import type { Worker } from 'node:worker_threads';
import { type XmlChunk } from '../decode';
import { matchOwnersInSlices, type OwnersOutcome, type OwnersRequest } from '../../owners-matching';
import type { BundleLimits } from '../../bundle/limits';
import { readBundle } from '../../bundle/read-bundle';
import type { ReadBundle } from '../../bundle/types';
import { inThreadJunitParser, type JunitParser } from '../parser';
import { parseJunit } from '../parse';
import { type ParsedJunitFile } from '../types';
import {
  bundleFromWire,
  chunkBytes,
  type FromWorker,
  fromWire,
  type JobTask,
  resultFromWire,
  type ToWorker,
} from './protocol';
import { spawnParserWorker } from './spawn';

/** Unparsed bytes one file may have in flight to its worker. */
const WINDOW_BYTES = 1024 * 1024;
const READY_TIMEOUT_MS = 30_000;

export interface JunitParserPoolOptions {
  readonly threads: number;
  /** Told when a worker dies unexpectedly (it is replaced). */
  readonly onWorkerError?: (err: Error) => void;
  /** Starts one thread serving the protocol (spawn.ts by default; tests pass failing ones). */
  readonly spawn?: () => Worker;
}

export interface JunitParserPool extends JunitParser {
  readonly threads: number;
  matchOwners(request: OwnersRequest): Promise<OwnersOutcome>;
  readBundle(source: AsyncIterable<Uint8Array>, limits: BundleLimits): Promise<ReadBundle>;
}

/** Starts the threads and waits until each can parse; rejects (and stops them) if one cannot. */
export async function startJunitParserPool(options: JunitParserPoolOptions): Promise<JunitParserPool> {
  if (!Number.isInteger(options.threads) || options.threads < 1)
    throw new RangeError(`a parser pool needs at least one thread, not ${options.threads}`);
  const spawn = options.spawn ?? spawnParserWorker;
  let closed = false;
  let nextJob = 1;
  const slots: Slot[] = [];
  const replace = (dead: Slot, err: Error) => {
    options.onWorkerError?.(err);
    const index = slots.indexOf(dead);
    // Only a thread that had started is replaced: one that failed to start would fail again.
    if (closed || index === -1 || !dead.started) return;
    const slot = new Slot(spawn(), replace);
    slots[index] = slot;
    slot.ready.catch(() => undefined);
  };
  for (let i = 0; i < options.threads; i += 1) slots.push(new Slot(spawn(), replace));
  try {
    await withTimeout(
      Promise.all(slots.map((s) => s.ready)),
      READY_TIMEOUT_MS,
      'the JUnit parser threads did not start',
    );
  } catch (err) {
    closed = true;
    await Promise.allSettled(slots.map((s) => s.stop()));
    throw err;
  }

  /** The least busy live thread; ties go to the first, which keeps one upload's files together. */
  const leastBusy = (): Slot | undefined => {
    let slot: Slot | undefined;
    for (const s of slots) if (s.alive && (slot === undefined || s.active < slot.active)) slot = s;
    return slot;
  };

  return {
    threads: options.threads,
    async parse(source, parseOptions) {
      if (closed) throw new Error('The JUnit parser pool is closed.');
      const slot = leastBusy();
      if (slot === undefined) return parseJunit(source, parseOptions);
      const task: JobTask = {
        kind: 'junit',
        fileName: parseOptions.fileName,
        ...(parseOptions.limits === undefined ? {} : { limits: parseOptions.limits }),
      };
      const result = await slot.run(nextJob++, source, task);
      if (result.kind !== 'file') throw new Error('The JUnit parser thread answered a bundle for a file.');
      return result.file;
    },
    async readBundle(source, limits) {
      if (closed) throw new Error('The JUnit parser pool is closed.');
      const slot = leastBusy();
      // No thread left: on this one, as without a pool.
      if (slot === undefined) return readBundle(source, { parser: inThreadJunitParser, limits });
      const result = await slot.run(nextJob++, source, { kind: 'bundle', limits });
      if (result.kind !== 'bundle') throw new Error('The JUnit parser thread answered a file for a bundle.');
      return result.bundle;
    },
    async matchOwners(request) {
      if (closed) throw new Error('The JUnit parser pool is closed.');
      const slot = leastBusy();
      // No thread left: on this one, in slices that let the event loop serve between them.
      if (slot === undefined) return matchOwnersInSlices(request);
      return slot.matchOwners(nextJob++, request);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(slots.map((s) => s.stop()));
    },
  };
}

/** A matchOwners job: one request, one answer. */
interface OwnersJob {
  resolve(outcome: OwnersOutcome): void;
  reject(err: Error): void;
}

/** What a streamed job answers. */
type JobResult =
  | { readonly kind: 'file'; readonly file: ParsedJunitFile }
  | { readonly kind: 'bundle'; readonly bundle: ReadBundle };

interface Job {
  unacked: number;
  failure: Error | undefined;
  /** Wakes the sender when acknowledgements arrive or the job settles. */
  wake: (() => void) | undefined;
  resolve(result: JobResult): void;
  reject(err: Error): void;
}

/** One worker thread and the jobs it is running. */
class Slot {
  readonly ready: Promise<void>;
  /** The thread said it is ready (it loaded the parser). */
  started = false;
  private readonly jobs = new Map<number, Job>();
  private readonly ownerJobs = new Map<number, OwnersJob>();
  private stopping = false;

  constructor(
    private readonly worker: Worker,
    onDeath: (slot: Slot, err: Error) => void,
  ) {
    let started: () => void = () => undefined;
    let failedToStart: (err: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failedToStart = reject;
    });
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        this.started = true;
        return started();
      }
      const owners = this.ownerJobs.get(message.job);
      if (owners !== undefined) {
        this.ownerJobs.delete(message.job);
        if (message.type === 'owners') owners.resolve(message.outcome);
        else if (message.type === 'error') owners.reject(fromWire(message.error));
        return;
      }
      const job = this.jobs.get(message.job);
      if (job === undefined) return;
      switch (message.type) {
        case 'ack':
          job.unacked -= message.bytes;
          break;
        case 'done':
          this.jobs.delete(message.job);
          job.resolve({ kind: 'file', file: resultFromWire(message.result) });
          break;
        case 'bundle':
          this.jobs.delete(message.job);
          job.resolve({ kind: 'bundle', bundle: bundleFromWire(message.bundle) });
          break;
        case 'error':
          this.jobs.delete(message.job);
          job.failure = fromWire(message.error);
          job.reject(job.failure);
          break;
        case 'owners':
          break;
      }
      wake(job);
    });
    const die = (err: Error) => {
      failedToStart(err);
      if (this.stopping) return;
      this.stopping = true;
      this.failAll(err);
      onDeath(this, err);
    };
    worker.on('error', (err) => die(new Error(`The JUnit parser thread failed: ${err.message}`)));
    worker.on('exit', (code) => die(new Error(`The JUnit parser thread exited with code ${code}.`)));
  }

  get active(): number {
    return this.jobs.size + this.ownerJobs.size;
  }

  get alive(): boolean {
    return !this.stopping;
  }

  async run(
    id: number,
    source: AsyncIterable<XmlChunk> | Iterable<XmlChunk>,
    task: JobTask,
  ): Promise<JobResult> {
    if (this.stopping) throw new Error('The JUnit parser thread is not running.');
    let resolve: (result: JobResult) => void = () => undefined;
    let reject: (err: Error) => void = () => undefined;
    const result = new Promise<JobResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Awaited below or handed to the caller; never left to reject unobserved.
    result.catch(() => undefined);
    const job: Job = { unacked: 0, failure: undefined, wake: undefined, resolve, reject };
    this.jobs.set(id, job);
    this.post({ type: 'start', job: id, task });
    try {
      for await (const chunk of source) {
        if (job.failure !== undefined) break;
        this.sendChunk(id, job, chunk);
        while (job.unacked > WINDOW_BYTES && job.failure === undefined && this.jobs.has(id))
          await nextWake(job);
        if (job.failure !== undefined) break;
      }
    } catch (sourceError) {
      // As in-thread: the chunks before the failure are parsed first, and their refusal wins.
      while (job.unacked > 0 && job.failure === undefined && this.jobs.has(id)) await nextWake(job);
      this.jobs.delete(id);
      this.post({ type: 'abort', job: id });
      throw job.failure ?? sourceError;
    }
    if (job.failure === undefined) this.post({ type: 'end', job: id });
    return result;
  }

  matchOwners(id: number, request: OwnersRequest): Promise<OwnersOutcome> {
    if (this.stopping) return Promise.reject(new Error('The JUnit parser thread is not running.'));
    return new Promise<OwnersOutcome>((resolve, reject) => {
      this.ownerJobs.set(id, { resolve, reject });
      this.post({ type: 'matchOwners', job: id, request });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.failAll(new Error('The JUnit parser pool is closed.'));
    await this.worker.terminate();
  }

  private sendChunk(id: number, job: Job, chunk: XmlChunk): void {
    if (typeof chunk === 'string') {
      job.unacked += chunkBytes(chunk);
      this.post({ type: 'chunk', job: id, chunk });
      return;
    }
    // A copy the worker can own: the chunk may be a view into a buffer the caller reuses, and posting
    // a view would clone its whole backing buffer anyway.
    const copy = new Uint8Array(chunk);
    job.unacked += copy.byteLength;
    this.worker.postMessage({ type: 'chunk', job: id, chunk: copy } satisfies ToWorker, [copy.buffer]);
  }

  private post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  private failAll(err: Error): void {
    for (const job of this.jobs.values()) {
      job.failure ??= err;
      job.reject(job.failure);
      wake(job);
    }
    this.jobs.clear();
    for (const job of this.ownerJobs.values()) job.reject(err);
    this.ownerJobs.clear();
  }
}

function wake(job: Job): void {
  const waiting = job.wake;
  job.wake = undefined;
  waiting?.();
}

function nextWake(job: Job): Promise<void> {
  return new Promise<void>((resolve) => (job.wake = resolve));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${message} within ${ms / 1000} s.`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
