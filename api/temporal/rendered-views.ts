/**
 * RenderedViews: getQueue's answers as this API process last built them from the read projection,
 * kept per queue with the version of the view they were built from (ADR 0016). A dashboard polling a
 * queue of 1,000 PRs that has not moved reads the view's version (one small query) instead of its 361
 * KB of entries, and nothing is mapped again.
 *
 * Invariants:
 * - An answer is reused only for the exact version it was built from: the projection writes a view
 *   only with a higher revision of its generation, or a new generation, so one version is one content.
 * - At most MAX_QUEUES answers are kept (the least recently used go first); an answer is never changed
 *   after it is kept (callers only serialise it).
 */
import type { QueueView } from '../schemas/queue';

/** Answers of at most this many queues are kept (about 1 MB of heap each at 1,000 PRs). */
export const MAX_QUEUES = 16;

export interface ViewVersion {
  generation: string;
  revision: number;
}

export interface RenderedViews {
  /** The answer built from `version` of `queue`'s view, if kept. */
  get(queue: string, version: ViewVersion): QueueView | undefined;
  keep(queue: string, version: ViewVersion, view: QueueView): void;
}

const tag = (v: ViewVersion) => `${v.generation}\u0000${v.revision}`;

export function createRenderedViews(max = MAX_QUEUES): RenderedViews {
  const kept = new Map<string, { version: string; view: QueueView }>();
  return {
    get(queue, version) {
      const hit = kept.get(queue);
      if (!hit || hit.version !== tag(version)) return undefined;
      // Most recently used last.
      kept.delete(queue);
      kept.set(queue, hit);
      return hit.view;
    },
    keep(queue, version, view) {
      kept.delete(queue);
      kept.set(queue, { version: tag(version), view });
      while (kept.size > max) kept.delete(kept.keys().next().value!);
    },
  };
}
