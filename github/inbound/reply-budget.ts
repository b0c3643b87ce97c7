/**
 * How often the command handler may answer a command with a reply on the PR (issue 24): a reply costs
 * the installation's GitHub budget and notifies everyone watching the PR, and anyone who can comment
 * (any GitHub user, on a public repository) can write commands. Reactions are not counted: one per
 * comment, and GitHub keeps one per user and content.
 *
 * Rules, over a sliding window (`windowMs`, default 10 minutes):
 * - at most one reply per PR and kind of reply (`no-access`, `invalid`, `no-queue`, `stale`,
 *   `rejected`, `failed`); the `no-access` kind is keyed by the PR alone, so commenters without write
 *   access get one reply per PR between them, whoever comments next;
 * - at most `perInstallation` replies (default 30) per installation, whatever the PR;
 * - memory is bounded: at most `maxKeys` PR keys (default 10,000) and installations are remembered,
 *   the oldest forgotten first (forgetting one only allows a reply again).
 * A withheld reply is still recorded in the delivery's outcome (`(reply withheld)`). The budget is per
 * process (the API and the worker's reconciliation each keep one), so a window sees at most one reply
 * per process for a key.
 */

export type ReplyKind = 'no-access' | 'invalid' | 'no-queue' | 'stale' | 'rejected' | 'failed';

export interface ReplyBudget {
  /** Whether a reply of `kind` may be posted on the PR now; counts it when it may. */
  take(installationId: number, repository: string, pr: number, kind: ReplyKind): boolean;
}

export interface ReplyBudgetOptions {
  windowMs?: number;
  perInstallation?: number;
  maxKeys?: number;
  now?: () => number;
}

export function createReplyBudget(options: ReplyBudgetOptions = {}): ReplyBudget {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const perInstallation = options.perInstallation ?? 30;
  const maxKeys = options.maxKeys ?? 10_000;
  const now = options.now ?? Date.now;
  /** Last reply per key; a Map keeps insertion order, so the first entry is the oldest. */
  const lastReply = new Map<string, number>();
  /** Reply times per installation within the window, oldest first. */
  const byInstallation = new Map<number, number[]>();

  const remember = <K, V>(map: Map<K, V>, key: K, value: V) => {
    map.delete(key);
    map.set(key, value);
    while (map.size > maxKeys) map.delete(map.keys().next().value as K);
  };

  return {
    take(installationId, repository, pr, kind) {
      const at = now();
      const key = `${installationId}/${repository}#${pr}/${kind}`;
      const last = lastReply.get(key);
      if (last !== undefined && at - last < windowMs) return false;
      const recent = (byInstallation.get(installationId) ?? []).filter((t) => at - t < windowMs);
      if (recent.length >= perInstallation) {
        remember(byInstallation, installationId, recent);
        return false;
      }
      remember(lastReply, key, at);
      remember(byInstallation, installationId, [...recent, at]);
      return true;
    },
  };
}
