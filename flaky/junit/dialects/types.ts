/**
 * What a dialect decides: how a raw testcase maps to the identity fields, and how repeated
 * testcases of one test are to be read. Everything else (attempts from retry children, limits)
 * is dialect-neutral.
 */
import { type RawCase } from '../raw';
import { type Dialect } from '../types';

export interface CaseIdentity {
  readonly suite: string;
  readonly classname: string;
  readonly name: string;
  readonly file?: string;
  readonly line?: number;
  readonly parent: string;
  readonly describePath?: readonly string[];
}

export interface DialectRules {
  readonly dialect: Dialect;
  identify(raw: RawCase): CaseIdentity;
  /**
   * True when an earlier repeat of a test with no outcome child is a failed rerun rather than a
   * pass (pytest-rerunfailures writes reruns as empty testcases).
   */
  readonly emptyRepeatsAreFailedReruns: boolean;
}
