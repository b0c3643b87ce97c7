/**
 * PUT /v1/metrics/bundles/:uploadId?expires=…&signature=…: the bundle of an upload createBundleUpload
 * started. No API key: the URL's signature and expiry are the authority (signature.ts), and the upload
 * row says which organisation and repository the results go to, whatever the bundle's meta.json says
 * (a different repository in it is refused). One bundle per URL: the first PUT claims the upload.
 *
 * Order of refusals: a bad signature (403) or expired URL (403) before anything else; then the content
 * type (415) and a Content-Length over the limit (413) before the body is read; a used URL (410) or one
 * being received (409); then, while the body streams, its size (413) and everything readBundle refuses
 * (400/413), a JUnit file the parser refuses (400/413), a CODEOWNERS over its bounds (400). A refused
 * bundle stores nothing and its URL is spent; a failure of railyard's own (5xx) gives the URL back.
 * The signature is never echoed: the request log and the 404 handler strip the query string.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type CiDetails, ciDetailsOf, readBundle } from '../../../flaky/bundle';
import { matchUploadOwners } from '../../../flaky/ingest/owners';
import { JunitParseError } from '../../../flaky/junit';
import { matchOwnersInSlices } from '../../../flaky/owners-matching';
import { repositoryLabel } from '../../../contract';
import { badRequest, forbidden, isAppError } from '../../errors';
import { type BundleRouteDeps, tags } from './deps';

const Params = z.object({ uploadId: z.uuid({ error: 'must be an upload id' }) });
const Query = z.object({
  expires: z.coerce.number({ error: 'must be a number' }).int().min(0).max(1e11),
  signature: z.string().max(100),
});

const httpError = (statusCode: number, message: string) => Object.assign(new Error(message), { statusCode });
const ACCEPTED_TYPES = new Set(['application/octet-stream', 'application/zstd', 'application/x-zstd']);

declare module 'fastify' {
  interface FastifyRequest {
    bundleUploadVerified?: boolean;
  }
}

export function putBundleRoutes(deps: BundleRouteDeps) {
  return (app: FastifyInstance): void => {
    // Scoped to this plugin: the body reaches the handler as the raw stream, whatever its type (the
    // handler answers 415 for a type it does not take, in its own words).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // Whatever the client still sends after a refusal is read and dropped, so it gets the answer and
    // the connection stays usable.
    app.addHook('onSend', (request, _reply, payload, done) => {
      request.raw.resume();
      done(null, payload);
    });
    app.withTypeProvider<ZodTypeProvider>().put(
      '/metrics/bundles/:uploadId',
      {
        schema: {
          tags,
          summary: "Receive a Trunk bundle (trunk-analytics-cli's PUT of the URL createBundleUpload gave).",
          description: `Body: bundle.tar.zstd as application/octet-stream, at most ${deps.maxBundleBytes} bytes, unpacking to at most ${deps.limits.maxUnpackedBytes} bytes. No API key.`,
          params: Params,
          querystring: Query,
          consumes: ['application/octet-stream'],
        },
        config: { public: true },
        // After validation, before the handler: the upload's organisation is known from here on, so
        // the per-organisation upload cap (plugins/in-flight.ts) counts this request.
        preHandler: async (request) => {
          const { uploadId } = request.params;
          const { expires, signature } = request.query;
          if (!deps.signer.verify(uploadId, expires, signature))
            throw forbidden(
              "The upload URL's signature is not valid; use the URL createBundleUpload answered.",
            );
          if (expires * 1000 <= deps.now())
            throw forbidden('The upload URL has expired; call createBundleUpload again for a new one.');
          const uploader = await deps.pending.uploaderOf(uploadId);
          request.organisation = uploader?.organisation ?? null;
          // Its upload slot is then one of the few public-id callers share (plugins/in-flight.ts).
          request.uploadByPublicId = uploader?.caller === 'public-id';
          request.bundleUploadVerified = true;
        },
      },
      async (request, reply) => receive(deps, request, reply),
    );
  };
}

async function receive(deps: BundleRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  if (request.bundleUploadVerified !== true) throw forbidden("The upload URL's signature is not valid.");
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== '' && !ACCEPTED_TYPES.has(type))
    throw httpError(
      415,
      `Content type '${type.slice(0, 100)}' is not supported; send the bundle as application/octet-stream.`,
    );
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > deps.maxBundleBytes) throw tooLarge(deps.maxBundleBytes);
  const { uploadId } = request.params as { uploadId: string };
  const claim = await deps.pending.claim(uploadId, new Date(deps.now()));
  switch (claim.kind) {
    case 'unknown':
    case 'expired':
      throw forbidden('The upload URL has expired; call createBundleUpload again for a new one.');
    case 'used':
      throw httpError(410, 'The upload URL was already used; call createBundleUpload again for a new one.');
    case 'busy':
      throw httpError(409, 'A bundle is being received on this upload URL; retry when it is done.');
    case 'claimed':
      break;
  }
  const { upload } = claim;
  try {
    const body = limited(request.body as AsyncIterable<Buffer>, deps.maxBundleBytes);
    // On the parser pool's threads when there is one: unpacking and decoding are CPU-bound and
    // amplifying (a 1.9 KB bundle unpacks to 20 MiB of protobuf), never for the event loop.
    const bundle = deps.parser.readBundle
      ? await deps.parser.readBundle(body, deps.limits)
      : await readBundle(body, { parser: deps.parser, limits: deps.limits });
    const { meta, files, codeowners } = bundle;
    if (!sameRepository(meta.repo, upload.repo))
      throw badRequest(
        `The bundle's meta.json names the repository ${repositoryLabel(meta.repo)}, but the upload URL was made for ${repositoryLabel(upload.repo)}.`,
      );
    const owners = await ownersOf(codeowners, files, deps);
    const ci: CiDetails = ciDetailsOf(meta.envs);
    const outcome = await deps.store.ingest({
      organisationId: upload.organisation.id,
      organisationSlug: upload.organisation.slug,
      repository: upload.repo,
      metadata: {
        uploadId: upload.id,
        commitSha: meta.commitSha,
        branch: meta.branch,
        attempt: ci.attempt,
        variant: meta.variant,
        ...(ci.prNumber === undefined ? {} : { prNumber: ci.prNumber }),
        ...(ci.jobName === undefined ? {} : { jobName: ci.jobName }),
        ...(ci.jobUrl === undefined ? {} : { jobUrl: ci.jobUrl }),
        ...(codeowners === undefined ? {} : { codeowners }),
      },
      files,
      ...(owners === undefined ? {} : { owners }),
    });
    await deps.pending.finish(upload.id, 'received', new Date(deps.now()));
    request.log.info({ upload: upload.id, schema: meta.schema, tests: outcome.tests }, 'bundle received');
    return reply.code(200).send({
      upload_id: outcome.uploadId,
      created: outcome.created,
      tests: outcome.tests,
      results: outcome.results,
      failures: outcome.failures,
      skipped: outcome.skipped,
    });
  } catch (err) {
    const refused = refusalOf(err);
    if (refused === null) {
      await deps.pending.release(upload.id).catch(() => undefined);
      throw err;
    }
    await deps.pending.finish(upload.id, 'refused', new Date(deps.now()));
    throw refused;
  }
}

/** The client error a failure is, or null for railyard's own (5xx, the URL stays usable). */
function refusalOf(err: unknown): Error | null {
  if (err instanceof JunitParseError) return httpError(err.kind === 'too_large' ? 413 : 400, err.message);
  if (isAppError(err)) return err.statusCode < 500 ? err : null;
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return err instanceof Error && typeof status === 'number' && status >= 400 && status < 500 ? err : null;
}

const tooLarge = (limit: number) => httpError(413, `The bundle is larger than the limit of ${limit} bytes.`);

async function* limited(body: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    yield chunk;
  }
}

const sameRepository = (a: { host: string; owner: string; name: string }, b: typeof a) =>
  a.host.toLowerCase() === b.host.toLowerCase() &&
  a.owner.toLowerCase() === b.owner.toLowerCase() &&
  a.name.toLowerCase() === b.name.toLowerCase();

async function ownersOf(
  codeowners: string | undefined,
  files: Parameters<typeof matchUploadOwners>[1],
  deps: BundleRouteDeps,
) {
  if (codeowners === undefined) return undefined;
  if (codeowners.includes('\0')) throw badRequest("The bundle's CODEOWNERS contains a NUL character.");
  const owners = await matchUploadOwners(codeowners, files, (request) =>
    deps.parser.matchOwners ? deps.parser.matchOwners(request) : matchOwnersInSlices(request),
  );
  if (owners.kind === 'refused') throw badRequest(`The bundle's CODEOWNERS ${owners.problem}.`);
  return owners.byFile;
}
