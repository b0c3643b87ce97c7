/**
 * POST /v1/flaky-tests/upload: JUnit XML files with their CI metadata (upload-schema.ts for both
 * forms). The files are parsed as they stream in, then stored in one transaction; the same
 * upload_id sent again changes nothing and answers `created: false` (409 if its content differs).
 *
 * The route has no body schema on purpose: a multipart body is read by the handler, part by part,
 * so both forms are validated here with the same zod schema and the same sentences as every other
 * 400; the document shows both forms through `documentedBody` (plugins/openapi.ts), the JSON form's
 * example a small JUnit report that "Try it out" can send as is. Refused files (not XML, DOCTYPE,
 * not JUnit, too large) are 400/413 with the parser's sentence.
 * The owners of the tests (CODEOWNERS) are matched off the event loop, within a bound (owners.ts).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { type JunitParser, JunitParseError, type ParsedJunitFile } from '../../../flaky/junit';
import { CODEOWNERS_LIMITS } from '../../../flaky/codeowners';
import { matchUploadOwners, type OwnersByFile } from '../../../flaky/ingest/owners';
import { UploadConflictError } from '../../../flaky/ingest/types';
import { matchOwnersInSlices } from '../../../flaky/owners-matching';
import { badRequest, conflict } from '../../errors';
import { describeIssue } from '../../validation-message';
import { type FlakyRouteDeps, tags } from './deps';
import { readMultipart, tooLarge } from './multipart';
import { organisationFor } from './scope';
import {
  metadataFromFields,
  UploadJsonRequest,
  UploadMetadataFields,
  UploadMultipartForm,
  UploadResponse,
} from './upload-schema';

const DESCRIPTION = `Send \`multipart/form-data\` (metadata as form fields such as \`repo.host\`, \`upload_id\`,
\`commit_sha\`, \`branch\`; CODEOWNERS as a \`codeowners\` field or file; every other file part is a JUnit
XML file) or \`application/json\` (the same metadata plus \`files: [{name, content}]\`). CODEOWNERS: at
most ${CODEOWNERS_LIMITS.maxRules} rules, patterns of at most ${CODEOWNERS_LIMITS.maxPatternChars} characters, and at most
${CODEOWNERS_LIMITS.maxMatchSteps} matching steps against the tests' files (400 past any of these).`;

export function uploadRoutes({ store, parser }: FlakyRouteDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(multipart);
    app.withTypeProvider<ZodTypeProvider>().post(
      '/flaky-tests/upload',
      {
        schema: {
          tags,
          summary: 'Upload JUnit XML results of one CI job (idempotent by upload_id).',
          description: DESCRIPTION,
          documentedBody: {
            'application/json': UploadJsonRequest,
            'multipart/form-data': UploadMultipartForm,
          },
          response: { 200: UploadResponse },
        },
        config: { repository: 'route' },
      },
      async (request) => {
        const { metadata, files } = await readUpload(request, parser);
        const organisation = organisationFor(request, metadata.org_url_slug);
        // An upload is a first use: it may claim an unclaimed repository (plugins/repository-access.ts).
        await request.server.repositoryAccess.use(organisation, metadata.repo);
        const owners = await ownersOf(metadata.codeowners, files, parser);
        try {
          const outcome = await store.ingest({
            organisationId: organisation.id,
            organisationSlug: organisation.slug,
            repository: metadata.repo,
            metadata: {
              uploadId: metadata.upload_id,
              commitSha: metadata.commit_sha,
              branch: metadata.branch,
              attempt: metadata.attempt,
              variant: metadata.variant,
              ...(metadata.pr_number === undefined ? {} : { prNumber: metadata.pr_number }),
              ...(metadata.job_name === undefined ? {} : { jobName: metadata.job_name }),
              ...(metadata.job_url === undefined ? {} : { jobUrl: metadata.job_url }),
              ...(metadata.codeowners === undefined ? {} : { codeowners: metadata.codeowners }),
            },
            files,
            ...(owners === undefined ? {} : { owners }),
          });
          return {
            upload_id: outcome.uploadId,
            created: outcome.created,
            files: [...outcome.files],
            tests: outcome.tests,
            results: outcome.results,
            failures: outcome.failures,
            skipped: outcome.skipped,
            infra: outcome.infra,
            reclassified: outcome.reclassified,
            status_changes: outcome.statusChanges,
          };
        } catch (err) {
          if (err instanceof UploadConflictError) throw conflict(err.message);
          throw err;
        }
      },
    );
  };
}

async function readUpload(
  request: FastifyRequest,
  parser: JunitParser,
): Promise<{ metadata: UploadMetadataFields; files: ParsedJunitFile[] }> {
  try {
    if (request.isMultipart()) {
      const { fields, files } = await readMultipart(request, parser);
      const metadata = validate(UploadMetadataFields, metadataFromFields(fields));
      if (files.length === 0) throw badRequest('The upload has no JUnit file; send at least one file part.');
      return { metadata, files };
    }
    const { files: sent, ...metadata } = validate(UploadJsonRequest, request.body);
    const files: ParsedJunitFile[] = [];
    for (const file of sent) files.push(await parser.parse([file.content], { fileName: file.name }));
    return { metadata, files };
  } catch (err) {
    if (!(err instanceof JunitParseError)) throw err;
    if (err.kind === 'too_large') throw Object.assign(tooLarge(), { message: err.message });
    throw badRequest(err.message);
  }
}

/**
 * The owners of the upload's test files, matched on a parser thread (in slices on this one without
 * a pool) so the event loop keeps serving; 400 when matching would cost more than its bound.
 */
async function ownersOf(
  codeowners: string | undefined,
  files: readonly ParsedJunitFile[],
  parser: JunitParser,
): Promise<OwnersByFile | undefined> {
  if (codeowners === undefined) return undefined;
  const owners = await matchUploadOwners(codeowners, files, (request) =>
    parser.matchOwners ? parser.matchOwners(request) : matchOwnersInSlices(request),
  );
  if (owners.kind === 'refused') throw badRequest(`Field 'codeowners' ${owners.problem}.`);
  return owners.byFile;
}

function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(issue === undefined ? 'The request is invalid.' : describeIssue(issue));
}
