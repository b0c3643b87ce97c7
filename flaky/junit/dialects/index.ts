/**
 * Dialect rules by name. Jest (jest-junit), Go (go-junit-report, gotestsum) and Maven Surefire
 * need nothing beyond the generic reading: their differences are all in retry encoding, which
 * attempts.ts handles for every dialect alike. They keep their own name so the parse result says
 * which tool wrote the file.
 */
import { type Dialect } from '../types';
import { identifyGeneric } from './generic';
import { playwrightRules } from './playwright';
import { pytestRules } from './pytest';
import { type DialectRules } from './types';

export function rulesFor(dialect: Dialect): DialectRules {
  switch (dialect) {
    case 'pytest':
      return pytestRules;
    case 'playwright':
      return playwrightRules;
    case 'jest':
    case 'go':
    case 'surefire':
    case 'generic':
      return { dialect, identify: identifyGeneric, emptyRepeatsAreFailedReruns: false };
  }
}

export { detectDialect } from './detect';
export type { CaseIdentity, DialectRules } from './types';
