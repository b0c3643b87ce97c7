/**
 * The read model of one test case: everything the spec's TestCase object (api-spec.md §2.6) carries,
 * in domain terms. Plain data, below both of its users: store/test-case-reads.ts loads it and
 * test-case-wire.ts turns it into the wire shape (snake_case, html_url links).
 */
import { type TestStatus } from './classification';
import type { RepositoryKey } from '../contract';
import { type QuarantineOverride, type QuarantineVerdict } from './quarantine';

export interface CommonFailure {
  readonly summary: string;
  readonly occurrences: number;
  readonly lastOccurrence: Date;
}

export interface TestCaseRecord {
  readonly pk: string;
  readonly id: string;
  readonly repository: RepositoryKey;
  readonly file: string | null;
  readonly classname: string;
  readonly parent: string;
  readonly name: string;
  readonly variant: string;
  readonly codeowners: readonly string[];
  readonly status: { readonly value: TestStatus; readonly reason: string; readonly timestamp: Date };
  readonly override: {
    readonly value: QuarantineOverride;
    readonly by: string | null;
    readonly at: Date | null;
    readonly reason: string | null;
    /** When the override stops applying (it is UNSPECIFIED from then on); null: no expiry. */
    readonly expiresAt: Date | null;
    /** Who answers for the override (a person or team, free text). */
    readonly owner: string | null;
  };
  /** Quarantine as it applies now: expired overrides and releases taken into account. */
  readonly quarantine: QuarantineVerdict;
  /** The automatic release (quarantine-release.ts): clean runs since the last failure, the threshold. */
  readonly release: {
    readonly cleanRuns: number;
    readonly releaseAfterCleanRuns: number;
    /** Released from quarantine by rule since then; null when not released. */
    readonly releasedAt: Date | null;
  };
  /**
   * When the test became quarantined (override time, or for auto the latest of the status change, the
   * setting change and the end of a release).
   */
  readonly quarantinedAt: Date | null;
  readonly ticket: { readonly key: string; readonly url: string | null } | null;
  /** Fractions 0..1 over non-skipped attempts of non-infra uploads, rounded to 4 decimals. */
  readonly failureRate7d: number;
  readonly failureRate24h: number;
  readonly pullRequestsImpacted7d: number;
  readonly mostCommonFailures: readonly CommonFailure[];
}
