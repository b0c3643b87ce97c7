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
  };
  readonly quarantine: QuarantineVerdict;
  /** When the test became quarantined (override time, or status/setting change for auto). */
  readonly quarantinedAt: Date | null;
  readonly ticket: { readonly key: string; readonly url: string | null } | null;
  /** Fractions 0..1 over non-skipped attempts of non-infra uploads, rounded to 4 decimals. */
  readonly failureRate7d: number;
  readonly failureRate24h: number;
  readonly pullRequestsImpacted7d: number;
  readonly mostCommonFailures: readonly CommonFailure[];
}
