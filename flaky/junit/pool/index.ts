/**
 * How a process gets its JUnit parser: a worker-thread pool of `threads` threads, or the in-thread
 * parser when `threads` is 0 or the threads cannot start (the API keeps working, only slower; the
 * caller is told why). The creator owns the result and closes it on shutdown.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { inThreadJunitParser, type JunitParser } from '../parser';
import { startJunitParserPool } from './pool';

export { startJunitParserPool, type JunitParserPool, type JunitParserPoolOptions } from './pool';

/**
 * One thread per core beyond the one the event loop uses, at least one and at most four: on a
 * 2-core machine PostgreSQL and the event loop need the other core as much as the parse does.
 */
export function defaultParserThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

export interface JunitParserOptions {
  /** 0 parses on the calling thread. */
  readonly threads: number;
  /** Why the pool is not used, or that one of its threads died (it is replaced). */
  readonly warn: (err: Error, message: string) => void;
  /** See JunitParserPoolOptions.spawn. */
  readonly spawn?: () => Worker;
}

export async function createJunitParser(options: JunitParserOptions): Promise<JunitParser> {
  if (options.threads === 0) return inThreadJunitParser;
  try {
    return await startJunitParserPool({
      threads: options.threads,
      onWorkerError: (err) => options.warn(err, 'a JUnit parser thread stopped; it is replaced'),
      ...(options.spawn === undefined ? {} : { spawn: options.spawn }),
    });
  } catch (err) {
    options.warn(
      err instanceof Error ? err : new Error(String(err)),
      'the JUnit parser threads could not start; uploads are parsed on the main thread',
    );
    return inThreadJunitParser;
  }
}
