/**
 * The executor's side of run content (api/routes/executor/run-content.ts): downloads the git bundle of
 * a job it holds from the API with its executor credential, then makes the checkout from it with
 * hardened git (git-command.ts). The executor needs no git root, mirror or credential of a code host.
 *
 * Rules:
 * - The credential goes in the Authorization header, never in a URL (URLs end up in logs).
 * - The download is bounded by `maxBytes` while it streams; a bigger answer fails the run.
 * - Network errors and 5xx answers are retried with backoff for up to `retryForMs` (an API restarting
 *   must not fail a run); 401/404 mean the run's content is gone (the run ended, its job was retried
 *   elsewhere, or the credential was revoked) and are not retried (ContentGone).
 * - A download that stalls (no answer, or no bytes, for `stallMs`) is cut and counts as a network
 *   error: an API process alive but not answering would otherwise hold the run until Node's 300 s,
 *   its heartbeats keeping the attempt alive (ADR 0024). The stall is timed by an ordinary timer, as
 *   api-client.ts's deadlines are, so the pending download holds the event loop.
 * - Thin content (issue 25, ADR 0025): the executor asks for it (THIN_CONTENT_HEADER); a thin bundle
 *   comes with the basis it needs and the organisation whose object cache (object-cache.ts) keeps it,
 *   and the basis is fetched (same bound, same retries) only when that cache lacks it. A full bundle
 *   (an older worker's, or a tested commit without a parent) is cloned as before.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { CheckoutInput } from '../git/git-host';
import { createDirectProcessRunner, type ProcessRunner } from '../platform/process-runner';
import { createHardenedGit } from './git-command';
import { BASIS_HEADER, ORGANISATION_HEADER, THIN_CONTENT_HEADER } from './content-headers';
import type { ObjectCache } from './object-cache';

/** Where a job's content is, on the API as this executor reaches it. */
export const runContentUrl = (apiUrl: string, jobId: string): URL =>
  new URL(`/v1/executor/jobs/${encodeURIComponent(jobId)}/content`, apiUrl);
/** The basis of a job's thin content. */
export const runBasisUrl = (apiUrl: string, jobId: string): URL =>
  new URL(`/v1/executor/jobs/${encodeURIComponent(jobId)}/basis`, apiUrl);
/** The largest run content the control plane stages and an executor accepts (RAILYARD_RUN_CONTENT_MAX_MB). */
export const DEFAULT_RUN_CONTENT_MAX_BYTES = 512 * 1024 * 1024;

export class ContentGone extends Error {
  override readonly name = 'ContentGone';
}

export interface ContentFetchOptions {
  /** The API's base URL as executors reach it. */
  apiUrl: string;
  /** The job whose content this is, and the executor's credential. */
  jobId: string;
  credential: string;
  maxBytes: number;
  retryForMs?: number;
  /** How long the download may go without an answer or a byte (default STALL_MS). */
  stallMs?: number;
  signal?: AbortSignal;
}

/** No answer or byte for this long cuts a download (a bundle streams in chunks well within it). */
export const STALL_MS = 30_000;

/** What a content answer says beside its bundle: the basis a thin bundle needs, null for a full one. */
export interface ContentBasis {
  sha: string;
  organisationId: string;
}

/** Downloads the bundle to `file`; answers the basis it needs (thin content), or null. */
export async function downloadRunContent(
  file: string,
  opts: ContentFetchOptions & { thin?: boolean },
): Promise<ContentBasis | null> {
  const headers = await downloadWithRetries(
    runContentUrl(opts.apiUrl, opts.jobId),
    file,
    opts,
    opts.thin === true,
  );
  const sha = headers.get(BASIS_HEADER);
  if (sha === null) return null;
  return { sha, organisationId: headers.get(ORGANISATION_HEADER) ?? '' };
}

/** Downloads the basis of the job's thin content to `file`. */
export async function downloadRunBasis(file: string, opts: ContentFetchOptions): Promise<void> {
  await downloadWithRetries(runBasisUrl(opts.apiUrl, opts.jobId), file, opts, true);
}

async function downloadWithRetries(
  url: URL,
  file: string,
  opts: ContentFetchOptions,
  thin: boolean,
): Promise<Headers> {
  const deadline = Date.now() + (opts.retryForMs ?? 60_000);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await downloadOnce(url, file, opts, thin);
    } catch (err) {
      if (err instanceof ContentGone || opts.signal?.aborted || Date.now() > deadline) throw err;
      if (err instanceof TooLarge) throw err;
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5_000)));
    }
  }
}

class TooLarge extends Error {}

async function downloadOnce(
  url: URL,
  file: string,
  opts: ContentFetchOptions,
  thin: boolean,
): Promise<Headers> {
  const stallMs = opts.stallMs ?? STALL_MS;
  const stalled = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const armStall = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        stalled.abort(new Error(`the run's content from ${url.origin} stalled: nothing for ${stallMs} ms`)),
      stallMs,
    );
  };
  armStall();
  try {
    return await streamOnce(url, file, opts, stalled.signal, armStall, thin);
  } catch (err) {
    // The stall's reason, not the abort's generic one, says what happened.
    throw stalled.signal.aborted ? (stalled.signal.reason as Error) : err;
  } finally {
    clearTimeout(timer);
  }
}

async function streamOnce(
  url: URL,
  file: string,
  opts: ContentFetchOptions,
  stalled: AbortSignal,
  progressed: () => void,
  thin: boolean,
): Promise<Headers> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${opts.credential}`, ...(thin ? { [THIN_CONTENT_HEADER]: '1' } : {}) },
    signal: opts.signal ? AbortSignal.any([opts.signal, stalled]) : stalled,
  });
  progressed();
  if (res.status === 401 || res.status === 404) {
    await res.body?.cancel();
    throw new ContentGone(
      `the run's content is gone from ${url.origin} (HTTP ${res.status}): the run ended or its job is no longer this executor's`,
    );
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new Error(`fetching the run's content from ${url.origin} answered HTTP ${res.status}`);
  }
  let seen = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _enc, done) {
      progressed();
      seen += chunk.length;
      if (seen > opts.maxBytes)
        done(new TooLarge(`the run's content is larger than the executor's ${opts.maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  await pipeline(
    Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>),
    bound,
    createWriteStream(file, { mode: 0o600 }),
  );
  return res.headers;
}

/**
 * A GitHost-shaped `checkout` that makes the working tree from the run's bundle: a thin one through the
 * object cache (with its basis), a full one by a clone of the bundle.
 */
export function bundleCheckout(
  opts: ContentFetchOptions & {
    cache: ObjectCache;
    /** Runs the clone's git commands; default: from this process. */
    processes?: ProcessRunner;
  },
): {
  checkout(input: CheckoutInput): Promise<void>;
} {
  const git = createHardenedGit(opts.processes ?? createDirectProcessRunner());
  return {
    async checkout({ repo, sha, directory }) {
      const bundle = join(dirname(directory), 'content.bundle');
      try {
        const basis = await downloadRunContent(bundle, { ...opts, thin: true });
        if (basis) {
          await opts.cache.checkout({
            organisationId: basis.organisationId,
            repo,
            basisSha: basis.sha,
            thinBundle: bundle,
            sha,
            directory,
            fetchBasis: (file) => downloadRunBasis(file, opts),
          });
          return;
        }
        await git.run(dirname(directory), ['clone', '--quiet', '--no-checkout', '--', bundle, directory]);
        await git.run(directory, ['checkout', '--quiet', '--detach', sha]);
        await git.run(directory, ['remote', 'remove', 'origin']);
      } finally {
        await rm(bundle, { force: true });
      }
    },
  };
}
