/** What the bundle upload routes share, built once by bundleUploadRoutes (index.ts). */
import type { BundleLimits } from '../../../flaky/bundle';
import type { JunitParser } from '../../../flaky/junit';
import type { FlakyStore } from '../../../flaky/service';
import type { PendingBundleUploads } from '../../../flaky/store/pending-uploads';
import type { UploadUrlSigner } from './signature';

export interface BundleRouteDeps {
  readonly store: FlakyStore;
  readonly parser: JunitParser;
  readonly pending: PendingBundleUploads;
  readonly signer: UploadUrlSigner;
  /** Without a trailing slash. */
  readonly publicUrl: string;
  readonly maxBundleBytes: number;
  readonly limits: BundleLimits;
  readonly urlTtlSeconds: number;
  readonly now: () => number;
}

export const tags = ['flaky tests'];

/** Defaults of RAILYARD_BUNDLE_MAX_BYTES and RAILYARD_BUNDLE_URL_TTL_SECONDS. */
export const DEFAULT_MAX_BUNDLE_BYTES = 50 * 1024 * 1024;
export const DEFAULT_URL_TTL_SECONDS = 900;

/** The path of an upload's PUT, under /v1. */
export const bundlePath = (uploadId: string) => `/metrics/bundles/${uploadId}`;
