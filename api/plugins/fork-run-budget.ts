/**
 * What checking an `x-forked-workflow-run-id` with GitHub may cost (issue 24). Each check is one or
 * two REST calls on the repository's installation, whose budget (5,000 calls an hour) belongs to the
 * organisation that linked it; the header needs no key, so without these bounds anyone could spend
 * that budget with random run ids in about a minute.
 *
 * Rules, in the order fork-auth.ts applies them:
 * - A run id GitHub said does not exist in a repository is remembered for UNKNOWN_RUN_MS: asking
 *   again is refused without a call (and counted as a failed authentication of the address).
 * - Each check is counted against the caller's address (`perAddressPerMinute`, a one-minute window;
 *   the real address behind a trusted proxy); an address with none left is refused (429) before its
 *   body is read.
 * - And against the repository (`perRepositoryPerHour`): whatever the number of addresses, checks of
 *   one repository can spend at most that many checks, two calls each, of its installation's hour.
 *   Past it, fork submissions of that repository wait (429) until the hour ends; the organisation's
 *   keyed work, which spends the same installation budget, keeps the rest.
 *
 * Both figures hold for the whole deployment: each API process counts its share, the figure divided by
 * the API processes alive (`replicas`, platform/replica-census.ts), as the installation's budget is one
 * however many processes spend it.
 *
 * Invariants: memory is bounded (window-counts.ts; at most MAX_UNKNOWN_RUNS remembered run ids, the
 * oldest dropped first); nothing here calls GitHub.
 */
import { repositoryLabel, type RepositoryKey } from '../../contract';
import { LimitExceeded, seconds } from './limit-exceeded';
import { shareOf } from './rate-limit';
import { createWindowCounts } from './window-counts';

export interface ForkRunBudgetSettings {
  /** Checks one client address may cause per minute. */
  readonly perAddressPerMinute: number;
  /** Checks one repository may cause per hour, whoever asks. */
  readonly perRepositoryPerHour: number;
}

/** Defaults of RAILYARD_FORK_RUN_CHECKS_PER_MINUTE and RAILYARD_FORK_RUN_CHECKS_PER_REPO_PER_HOUR. */
export const DEFAULT_FORK_RUN_BUDGET: ForkRunBudgetSettings = {
  perAddressPerMinute: 30,
  perRepositoryPerHour: 300,
};

export interface ForkRunBudget {
  /** The refusal for an address with no checks left, or null (spends nothing). */
  checkAddress(address: string): LimitExceeded | null;
  /** GitHub's recent refusal of a run that does not exist in this repository, or null. */
  unknownRun(repo: RepositoryKey, runId: number): string | null;
  /** Spends one check of the address and one of the repository, or answers the refusal (spending none). */
  take(address: string, repo: RepositoryKey): LimitExceeded | null;
  /** Remembers a run id GitHub said does not exist in this repository, with the refusal's reason. */
  rememberUnknown(repo: RepositoryKey, runId: number, reason: string): void;
}

const UNKNOWN_RUN_MS = 10 * 60_000;
const MAX_UNKNOWN_RUNS = 10_000;

const repoKey = (repo: RepositoryKey) =>
  `${repo.host.toLowerCase()}/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}`;

export function createForkRunBudget(
  settings: ForkRunBudgetSettings,
  opts: { now?: () => number; replicas?: () => number } = {},
): ForkRunBudget {
  const now = opts.now ?? Date.now;
  const replicas = () => opts.replicas?.() ?? 1;
  const perAddress = () => shareOf(settings.perAddressPerMinute, replicas());
  const perRepository = () => shareOf(settings.perRepositoryPerHour, replicas());
  const addresses = createWindowCounts({ max: perAddress, windowMs: 60_000, now });
  const repositories = createWindowCounts({ max: perRepository, windowMs: 3_600_000, now });
  const split = (figure: number) =>
    replicas() > 1 ? ` on this API process (the limit of ${figure} is split over ${replicas()})` : '';
  /** `repository#run` → the refusal and when it is forgotten; insertion order is age order. */
  const unknown = new Map<string, { reason: string; until: number }>();

  const addressRefusal = (address: string, wait: number) =>
    new LimitExceeded(
      `Address ${address} asked for more than ${perAddress()} x-forked-workflow-run-id checks in 60 seconds${split(settings.perAddressPerMinute)}; retry after ${seconds(wait)}.`,
      wait,
    );

  return {
    checkAddress(address) {
      const wait = addresses.waitFor(address);
      return wait > 0 ? addressRefusal(address, wait) : null;
    },
    unknownRun(repo, runId) {
      const key = `${repoKey(repo)}#${runId}`;
      const entry = unknown.get(key);
      if (entry === undefined) return null;
      if (entry.until > now()) return entry.reason;
      unknown.delete(key);
      return null;
    },
    take(address, repo) {
      const addressWait = addresses.waitFor(address);
      if (addressWait > 0) return addressRefusal(address, addressWait);
      const repository = repoKey(repo);
      const repoWait = repositories.waitFor(repository);
      if (repoWait > 0)
        return new LimitExceeded(
          `${repositoryLabel(repo)} had more than ${perRepository()} x-forked-workflow-run-id checks in the last hour${split(settings.perRepositoryPerHour)}; retry after ${seconds(repoWait)}, or send an API key.`,
          repoWait,
        );
      addresses.take(address);
      repositories.take(repository);
      return null;
    },
    rememberUnknown(repo, runId, reason) {
      const key = `${repoKey(repo)}#${runId}`;
      unknown.delete(key);
      if (unknown.size >= MAX_UNKNOWN_RUNS) {
        const oldest = unknown.keys().next().value;
        if (oldest !== undefined) unknown.delete(oldest);
      }
      unknown.set(key, { reason, until: now() + UNKNOWN_RUN_MS });
    },
  };
}
