/**
 * S3, consecutive failing commits: the last K_BROKEN distinct stable-set commits, ordered by their
 * latest result, each have at least one failure and no pass. A commit that also passed breaks the
 * run, so a flaky test that fails on main is never called broken by this rule.
 *
 * Fed results in canonical order, it keeps per-commit tallies and the K most recently touched
 * commits (a commit that gets a new result moves to the front, as its latest time changed).
 */
import { type CountedResult } from './history';

interface Tally {
  passes: number;
  failures: number;
}

export class ConsecutiveFailingCommits {
  private readonly tallies = new Map<string, Tally>();
  private recent: string[] = [];

  constructor(private readonly commits: number) {}

  add(result: CountedResult): void {
    const tally = this.tallies.get(result.commitSha) ?? { passes: 0, failures: 0 };
    if (result.failed) tally.failures += 1;
    else tally.passes += 1;
    this.tallies.set(result.commitSha, tally);
    this.recent = [result.commitSha, ...this.recent.filter((sha) => sha !== result.commitSha)].slice(
      0,
      this.commits,
    );
  }

  /** Forgets everything (staleness: old commits must not combine with new ones into a run). */
  reset(): void {
    this.tallies.clear();
    this.recent = [];
  }

  get active(): boolean {
    return (
      this.recent.length === this.commits &&
      this.recent.every((sha) => {
        const tally = this.tallies.get(sha);
        return tally !== undefined && tally.failures > 0 && tally.passes === 0;
      })
    );
  }
}
