/**
 * What reading a Trunk bundle gives (read-bundle.ts): its meta.json, at least one parsed results file
 * and its CODEOWNERS text, if any. The parser pool returns it from a bundle job (flaky/junit/parser.ts),
 * so it lives here, below both the reader and the parser.
 */
import type { ParsedJunitFile } from '../junit/types';
import type { BundleMeta } from './meta';

export interface ReadBundle {
  readonly meta: BundleMeta;
  /** At least one. */
  readonly files: readonly ParsedJunitFile[];
  readonly codeowners?: string;
}
