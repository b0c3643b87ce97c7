/**
 * One helper process of each kind per jest worker, shared by every fixture of every test file it runs.
 *
 * Why: a fixture per test (the queue harness makes a repository for each) used to start its own two
 * helpers, about 275 of each in a run, each a Node start. Jest gives every test file a fresh module
 * registry, so a module-level value would still be one per file; the helpers are kept on the `os`
 * core module instead, the one object every file of a worker shares.
 *
 * Invariants: never closed by a fixture; both end with the jest worker (the synchronous helper at the
 * end of its request pipe, the process broker with its IPC channel), and neither holds the worker's
 * event loop open while idle.
 */
import os from 'node:os';
import { createProcessBroker, type ProcessBroker } from '../../platform/process-runner';
import { createSyncBroker, type SyncBroker } from './sync-broker';

const SYNC = Symbol.for('railyard.test.sharedSyncBroker');
const PROCESSES = Symbol.for('railyard.test.sharedProcessBroker');

type Home = Record<symbol, unknown>;

/** The worker's synchronous broker (sync-broker.ts). */
export function sharedSyncBroker(): SyncBroker {
  const home = os as unknown as Home;
  return (home[SYNC] ??= createSyncBroker()) as SyncBroker;
}

/** The worker's process broker for fixtures' git hosts. */
export function sharedProcessBroker(): ProcessBroker {
  const home = os as unknown as Home;
  return (home[PROCESSES] ??= createProcessBroker()) as ProcessBroker;
}
