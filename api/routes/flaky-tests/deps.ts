/**
 * What the flaky-test routes need: the store, the JUnit parser, the page-token codec and the links to
 * this service's own pages. Built once by flakyTestRoutes from the app's dependencies.
 */
import type { JunitParser } from '../../../flaky/junit';
import type { FlakyStore } from '../../../flaky/service';
import type { PageTokens } from './page-token';
import type { Links } from './wire';

export interface FlakyRouteDeps {
  readonly store: FlakyStore;
  readonly parser: JunitParser;
  readonly tokens: PageTokens;
  readonly links: Links;
}

export const tags = ['flaky tests'];
