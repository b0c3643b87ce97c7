/**
 * Playwright's `junit` reporter: one `<testsuite>` per (project, spec file) with the project in
 * `hostname`, `classname` = the spec file (relative to the project's testDir), and `name` = the
 * describe titles and the test title joined by ` › `.
 *
 * The same test runs once per project (chromium, firefox, …) under identical classname and name,
 * so the project must be part of the identity: it becomes `parent`. Without that, a firefox
 * failure and a chromium pass in one file would read as two attempts of one test, i.e. as flaky.
 */
import { type RawCase } from '../raw';
import { identifyGeneric, innermostSuiteName, nonEmpty } from './generic';
import { type CaseIdentity, type DialectRules } from './types';

const TITLE_SEPARATOR = ' › ';

export const playwrightRules: DialectRules = {
  dialect: 'playwright',
  emptyRepeatsAreFailedReruns: false,
  identify(raw: RawCase): CaseIdentity {
    const identity = identifyGeneric(raw);
    const project = nonEmpty(raw.suites[raw.suites.length - 1]?.hostname);
    const titles = identity.name.split(TITLE_SEPARATOR);
    return {
      ...identity,
      file: identity.file ?? (nonEmpty(identity.classname) || nonEmpty(innermostSuiteName(raw))),
      parent: project ?? identity.parent,
      describePath: titles.slice(0, -1),
    };
  },
};
