/**
 * The flaky-test area under /v1/flaky-tests: the spec's reads (reads.ts), Trunk's extra lists and
 * ticket link (trunk-lists.ts), uploads (upload.ts), settings and overrides (settings.ts) and the CI
 * quarantine check (quarantine-check.ts); for Trunk's CLI, its quarantine lookup at
 * /v1/metrics/getQuarantineConfig (quarantine-config.ts) and its telemetry, dropped (telemetry.ts).
 * Routes are thin: zod schemas, the caller's organisation, one FlakyStore call.
 */
import type { FastifyInstance } from 'fastify';
import { inThreadJunitParser, type JunitParser } from '../../../flaky/junit';
import type { FlakyStore } from '../../../flaky/service';
import type { FlakyRouteDeps } from './deps';
import { createPageTokens } from './page-token';
import { quarantineCheckRoutes } from './quarantine-check';
import { quarantineConfigRoutes } from './quarantine-config';
import { readRoutes } from './reads';
import { settingsRoutes } from './settings';
import { telemetryRoutes } from './telemetry';
import { trunkListRoutes } from './trunk-lists';
import { uploadRoutes } from './upload';
import { createLinks } from './wire';
import { namedPlugin } from '../../plugins/named-plugin';

export interface FlakyDeps {
  readonly store: FlakyStore;
  /** HMAC key of the page tokens (RAILYARD_PAGE_TOKEN_SECRET); at least 16 characters. */
  readonly pageTokenSecret: string;
  /**
   * Parses uploaded JUnit files: the worker-thread pool server.ts starts (RAILYARD_PARSER_THREADS),
   * owned and closed by whoever created it. Parsed on the request's thread when absent.
   */
  readonly parser?: JunitParser;
}

export function flakyTestRoutes(deps: FlakyDeps, publicUrl: string) {
  const routeDeps: FlakyRouteDeps = {
    store: deps.store,
    parser: deps.parser ?? inThreadJunitParser,
    tokens: createPageTokens(deps.pageTokenSecret),
    links: createLinks(publicUrl),
  };
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(namedPlugin('readRoutes', readRoutes(routeDeps)));
    await app.register(namedPlugin('trunkListRoutes', trunkListRoutes(routeDeps)));
    await app.register(namedPlugin('settingsRoutes', settingsRoutes(routeDeps)));
    await app.register(namedPlugin('quarantineCheckRoutes', quarantineCheckRoutes(routeDeps)));
    await app.register(namedPlugin('quarantineConfigRoutes', quarantineConfigRoutes(routeDeps)));
    await app.register(namedPlugin('telemetryRoutes', telemetryRoutes()));
    await app.register(namedPlugin('uploadRoutes', uploadRoutes(routeDeps)));
  };
}
