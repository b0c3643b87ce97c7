/**
 * Trunk's bundle upload protocol, so `trunk-analytics-cli upload` / `test`, the analytics-uploader
 * action and the language plugins work unchanged (docs/flaky-tests.md, "Trunk's upload clients"):
 * POST /v1/metrics/createBundleUpload (create.ts) answers a short-lived signed URL on railyard itself,
 * and the PUT of that URL (put.ts, public: the signature is the authority) receives the bundle, reads
 * it (flaky/bundle) and ingests its results like POST /v1/flaky-tests/upload does.
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../../stores/db';
import type { BundleLimits } from '../../../flaky/bundle';
import { DEFAULT_BUNDLE_LIMITS } from '../../../flaky/bundle';
import { inThreadJunitParser } from '../../../flaky/junit';
import type { FlakyDeps } from '../flaky-tests';
import { createBundleUploadRoutes } from './create';
import { createPendingBundleUploads } from '../../../flaky/store/pending-uploads';
import { putBundleRoutes } from './put';
import { createUploadUrlSigner } from './signature';
import { type BundleRouteDeps, DEFAULT_MAX_BUNDLE_BYTES, DEFAULT_URL_TTL_SECONDS } from './deps';
import { namedPlugin } from '../../plugins/named-plugin';

export { DEFAULT_MAX_BUNDLE_BYTES, DEFAULT_URL_TTL_SECONDS } from './deps';

export interface BundleUploadSettings {
  readonly pool: Pool;
  /** The deployment's secret the URL signing key is derived from (RAILYARD_PAGE_TOKEN_SECRET). */
  readonly secret: string;
  /** Largest compressed bundle (RAILYARD_BUNDLE_MAX_BYTES); 413 past it. */
  readonly maxBundleBytes?: number;
  /** Bounds on what a bundle unpacks to (maxUnpackedBytes: RAILYARD_BUNDLE_MAX_UNPACKED_BYTES). */
  readonly limits?: BundleLimits;
  /** How long an upload URL works (RAILYARD_BUNDLE_URL_TTL_SECONDS). */
  readonly urlTtlSeconds?: number;
  /** Unexpired upload URLs one organisation's keys may hold. */
  readonly maxLiveUploads?: number;
  /** Unexpired upload URLs callers with its public ids may hold (RAILYARD_PUBLIC_ID_UPLOAD_URLS). */
  readonly maxLivePublicIdUploads?: number;
  /** Epoch milliseconds; tests pass a clock. */
  readonly now?: () => number;
}

export function bundleUploadRoutes(flaky: FlakyDeps, settings: BundleUploadSettings, publicUrl: string) {
  const deps: BundleRouteDeps = {
    store: flaky.store,
    parser: flaky.parser ?? inThreadJunitParser,
    pending: createPendingBundleUploads(settings.pool, {
      ...(settings.maxLiveUploads === undefined ? {} : { maxLive: settings.maxLiveUploads }),
      ...(settings.maxLivePublicIdUploads === undefined
        ? {}
        : { maxLivePublicId: settings.maxLivePublicIdUploads }),
    }),
    signer: createUploadUrlSigner(settings.secret),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    maxBundleBytes: settings.maxBundleBytes ?? DEFAULT_MAX_BUNDLE_BYTES,
    limits: settings.limits ?? DEFAULT_BUNDLE_LIMITS,
    urlTtlSeconds: settings.urlTtlSeconds ?? DEFAULT_URL_TTL_SECONDS,
    now: settings.now ?? Date.now,
  };
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(namedPlugin('createBundleUploadRoutes', createBundleUploadRoutes(deps)));
    await app.register(namedPlugin('putBundleRoutes', putBundleRoutes(deps)));
  };
}
