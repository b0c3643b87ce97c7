/** The API process's configuration, parsed once at start (see README for the table). */
import { z } from 'zod';
import { gitHubConfigShape } from '../github/app/config';
import { sharedConfigShape } from '../platform/config';
import { DEFAULT_MAX_QUEUES_PER_ORGANISATION } from '../events/store/queue-quota';
import { envInt, parseEnv } from '../platform/env';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from '../platform/public-url';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_ORGANISATION } from '../webhooks/store/subscriptions';
import { DEFAULT_MAX_REPOSITORIES_PER_ORGANISATION } from '../stores/repository-owners';
import { CLAIM_POLICIES } from './plugins/repository-access';
import { DEFAULT_IN_FLIGHT_CAPS } from './plugins/in-flight';
import { DEFAULT_REQUESTS_PER_SECOND } from './plugins/rate-limit';
import { DEFAULT_FORK_RUN_BUDGET } from './plugins/fork-run-budget';
import { DEFAULT_MAX_LIVE_PUBLIC_ID_UPLOADS } from '../flaky/store/pending-uploads';
import { parseTrustedProxies } from './plugins/trust-proxy';
import { DEFAULT_SERVER_TIMEOUTS } from './plugins/server-timeouts';
import { DEFAULT_MAX_UNPACKED_BYTES } from '../flaky/bundle/limits';
import { DEFAULT_FOLD_CONCURRENCY } from '../flaky/fold';
import { DEFAULT_MAX_BUNDLE_BYTES, DEFAULT_URL_TTL_SECONDS } from './routes/bundle-uploads/deps';

const ApiConfig = z.object({
  ...sharedConfigShape,
  /** The GitHub App; all optional, GitHub is off without an app id. */
  ...gitHubConfigShape,
  RAILYARD_API_HOST: z.string().min(1).default(DEFAULT_API_HOST),
  RAILYARD_API_PORT: envInt(0, 65535).default(DEFAULT_API_PORT),
  /** Signs flaky-test page tokens; the same on every API process, or tokens fail across them. */
  RAILYARD_PAGE_TOKEN_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  // Trunk bundle uploads (api/routes/bundle-uploads): the compressed size (413 past it), what a bundle
  // may unpack to, and how long an upload URL works. URLs are signed with a key derived from the secret above.
  RAILYARD_BUNDLE_MAX_BYTES: envInt(1024, 1024 * 1024 * 1024).default(DEFAULT_MAX_BUNDLE_BYTES),
  RAILYARD_BUNDLE_MAX_UNPACKED_BYTES: envInt(1024, 4 * 1024 * 1024 * 1024).default(
    DEFAULT_MAX_UNPACKED_BYTES,
  ),
  RAILYARD_BUNDLE_URL_TTL_SECONDS: envInt(60, 86_400).default(DEFAULT_URL_TTL_SECONDS),
  /** Worker threads that parse uploaded JUnit files; 0 parses on the event loop. Default: cores - 1, 1..4. */
  RAILYARD_PARSER_THREADS: envInt(0, 64).optional(),
  /** Repositories this process folds side by side (flaky/fold/loop.ts, each one pooled connection). */
  RAILYARD_FOLD_CONCURRENCY: envInt(1, 16).default(DEFAULT_FOLD_CONCURRENCY),
  // Tenant limits, per organisation and per API process (plugins/rate-limit.ts, plugins/in-flight.ts).
  /** Requests per second one organisation may send (unauthenticated requests: per address); 0: no limit. */
  RAILYARD_ORG_REQUESTS_PER_SECOND: envInt(0, 1_000_000).default(DEFAULT_REQUESTS_PER_SECOND),
  RAILYARD_ORG_UPLOADS_IN_FLIGHT: envInt(1, 1_000).default(DEFAULT_IN_FLIGHT_CAPS.uploads),
  RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT: envInt(1, 1_000).default(DEFAULT_IN_FLIGHT_CAPS.lists),
  // Outsiders' budgets (issue 24): what a caller with only a repository's public id may hold of the
  // owner's upload URLs and upload slots, and how many fork-run checks with GitHub a caller's address
  // and a repository may cause (flaky/store/pending-uploads.ts, plugins/in-flight.ts, plugins/fork-run-budget.ts).
  RAILYARD_PUBLIC_ID_UPLOAD_URLS: envInt(1, 100_000).default(DEFAULT_MAX_LIVE_PUBLIC_ID_UPLOADS),
  RAILYARD_PUBLIC_ID_UPLOADS_IN_FLIGHT: envInt(1, 1_000).default(DEFAULT_IN_FLIGHT_CAPS.publicIdUploads),
  RAILYARD_FORK_RUN_CHECKS_PER_MINUTE: envInt(1, 100_000).default(
    DEFAULT_FORK_RUN_BUDGET.perAddressPerMinute,
  ),
  RAILYARD_FORK_RUN_CHECKS_PER_REPO_PER_HOUR: envInt(1, 1_000_000).default(
    DEFAULT_FORK_RUN_BUDGET.perRepositoryPerHour,
  ),
  /**
   * Reverse proxies whose X-Forwarded-For names the client (plugins/trust-proxy.ts): addresses or CIDR
   * ranges, comma-separated; unset: the TCP peer is the client.
   */
  RAILYARD_TRUST_PROXY: z
    .string()
    .transform((value, ctx) => {
      const parsed = parseTrustedProxies(value);
      if ('ok' in parsed) return parsed.ok;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    })
    .optional(),
  // PostgreSQL (api/pools.ts): the routes' pool, and the few connections kept for API key lookups.
  RAILYARD_API_POOL_SIZE: envInt(1, 1_000).default(10),
  RAILYARD_API_KEY_POOL_SIZE: envInt(1, 100).default(2),
  /** statement_timeout of the routes' pool; a statement past it is cancelled and answered 503. */
  RAILYARD_API_STATEMENT_TIMEOUT_MS: envInt(100, 600_000).default(10_000),
  // How long a client may take to send a request (plugins/server-timeouts.ts).
  RAILYARD_API_HEADERS_TIMEOUT_MS: envInt(100, 600_000).default(DEFAULT_SERVER_TIMEOUTS.headersMs),
  RAILYARD_API_REQUEST_TIMEOUT_MS: envInt(100, 3_600_000).default(DEFAULT_SERVER_TIMEOUTS.requestMs),
  RAILYARD_API_IDLE_TIMEOUT_MS: envInt(100, 3_600_000).default(DEFAULT_SERVER_TIMEOUTS.idleMs),
  /** How long the answer to a request with an Idempotency-Key is replayed (routes/merge-queue/idempotency.ts). */
  RAILYARD_IDEMPOTENCY_KEY_TTL_HOURS: envInt(1, 720).default(24),
  /** Who may claim an unclaimed repository (plugins/repository-access.ts, ADR 0006). */
  RAILYARD_REPOSITORY_CLAIMS: z.enum(CLAIM_POLICIES).default('first-use'),
  RAILYARD_MAX_REPOSITORIES_PER_ORGANISATION: envInt(1, 1_000_000).default(
    DEFAULT_MAX_REPOSITORIES_PER_ORGANISATION,
  ),
  // Counts per organisation; past one, creating another is a 409 naming the setting.
  RAILYARD_MAX_QUEUES_PER_ORGANISATION: envInt(1, 1_000_000).default(DEFAULT_MAX_QUEUES_PER_ORGANISATION),
  RAILYARD_MAX_WEBHOOKS_PER_ORGANISATION: envInt(1, 100_000).default(
    DEFAULT_MAX_SUBSCRIPTIONS_PER_ORGANISATION,
  ),
  // The dashboard (api/dashboard/routes): how long a sign-in lasts, and the Temporal Web UI its PR pages link
  // to. Off unless set: Temporal's UI has no authentication and shows every organisation's histories, so
  // a deployment links it only where it sits behind the operators' own sign-in (`npm start` sets its
  // loopback-only UI).
  RAILYARD_UI_SESSION_HOURS: envInt(1, 720).default(12),
  RAILYARD_TEMPORAL_UI_URL: z
    .union([z.literal('off'), z.url({ protocol: /^https?$/, message: 'must be an http(s) URL or off' })])
    .default('off'),
});
export type ApiConfig = z.infer<typeof ApiConfig>;

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => parseEnv(ApiConfig, env);
