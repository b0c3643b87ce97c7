/**
 * The fault plan: seeded moments at which a component is hurt, and how long it stays down.
 *
 * - The worker, the API and the executor are killed with SIGKILL (no chance to finish anything) and
 *   started again after a seeded pause, as a process supervisor would. With replicas it is the first
 *   of each kind; the others carry on meanwhile.
 * - Temporal and PostgreSQL are restarted (stopped, then started on the same port and data).
 * Faults run one after another in time order; one that comes due before the stack answered again
 * after the previous one waits for that, so every fault hits a stack that was whole just before and
 * each recovery is measured on its own.
 */
import type { Stack } from '../../scripts/lib/stack';
import type { Rng } from '../simulate/rng';

export type FaultKind =
  'kill worker' | 'kill API' | 'kill executor' | 'restart Temporal' | 'restart PostgreSQL';

export interface Fault {
  kind: FaultKind;
  /** Milliseconds after the start of the run. */
  at: number;
  /** How long the component stays down before it is started again (kills only). */
  downMs: number;
}

export interface FaultCounts {
  workerKills: number;
  apiKills: number;
  /** Executor kills (its runs die with it and are retried); 0 when absent. */
  executorKills?: number;
  temporalRestarts: number;
  postgresRestarts: number;
}

export interface InjectedFault extends Fault {
  injectedAt: number;
  /** When the component was running again. */
  repairedAt: number;
}

export function planFaults(rng: Rng, counts: FaultCounts, windowMs: number): Fault[] {
  const kinds: FaultKind[] = [
    ...Array<FaultKind>(counts.workerKills).fill('kill worker'),
    ...Array<FaultKind>(counts.apiKills).fill('kill API'),
    ...Array<FaultKind>(counts.executorKills ?? 0).fill('kill executor'),
    ...Array<FaultKind>(counts.temporalRestarts).fill('restart Temporal'),
    ...Array<FaultKind>(counts.postgresRestarts).fill('restart PostgreSQL'),
  ];
  // Nothing in the first two seconds: the first submissions should be under way.
  return kinds
    .map((kind) => ({
      kind,
      at: Math.round(2_000 + rng.next() * windowMs),
      downMs: Math.round(rng.next() * 3_000),
    }))
    .sort((a, b) => a.at - b.at);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

async function inject(fault: Fault, stack: Stack): Promise<void> {
  switch (fault.kind) {
    case 'kill worker':
      await stack.worker.stop('SIGKILL');
      await sleep(fault.downMs);
      return stack.worker.start();
    case 'kill API':
      await stack.api.stop('SIGKILL');
      await sleep(fault.downMs);
      return stack.api.start();
    case 'kill executor':
      await stack.executor.stop('SIGKILL');
      await sleep(fault.downMs);
      return stack.executor.start();
    case 'restart Temporal':
      return stack.restartTemporal();
    case 'restart PostgreSQL':
      return stack.restartPostgres();
  }
}

export interface FaultHooks {
  /** Hears of each fault as it happens (ms since the start) and once repaired (ms it took). */
  onFault(f: Fault, phase: 'injected' | 'repaired', ms: number): void;
  /** Resolves once the stack answers again after `since`. */
  answering(since: number): Promise<void>;
}

/** Runs the plan from `startedAt`; `at` of each result is when it really happened. */
export async function runFaults(
  plan: Fault[],
  stack: Stack,
  startedAt: number,
  hooks: FaultHooks,
): Promise<InjectedFault[]> {
  const done: InjectedFault[] = [];
  for (const fault of plan) {
    await sleep(startedAt + fault.at - Date.now());
    const injectedAt = Date.now();
    hooks.onFault(fault, 'injected', injectedAt - startedAt);
    await inject(fault, stack);
    const repairedAt = Date.now();
    hooks.onFault(fault, 'repaired', repairedAt - injectedAt);
    done.push({ ...fault, at: injectedAt - startedAt, injectedAt, repairedAt });
    await hooks.answering(injectedAt);
  }
  return done;
}
