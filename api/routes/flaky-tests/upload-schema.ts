/**
 * The upload request (our design; the spec has none). Metadata fields are the same in both forms:
 *  - `multipart/form-data`: one form field per metadata field (`repo.host`, `repo.owner`,
 *    `repo.name`, `upload_id`, …; numbers as text), CODEOWNERS as a `codeowners` field or file
 *    part, and every other file part is a JUnit XML file, streamed into the parser as it arrives;
 *  - `application/json`: the metadata plus `files: [{ name, content }]` with the XML as strings.
 * `UploadMultipartForm` is the multipart form as the document shows it (upload.ts validates the parts
 * with UploadMetadataFields after metadataFromFields); its fields are UploadMetadataFields' own.
 */
import { z } from 'zod';
import { CODEOWNERS_LIMITS, readCodeowners } from '../../../flaky/codeowners';
import { PrNumber, RepoRef } from '../../schemas/common';
import {
  EXAMPLE_FAILED_PR,
  EXAMPLE_JUNIT_XML,
  EXAMPLE_ORG_SLUG,
  EXAMPLE_REPO,
  EXAMPLE_SHA,
  withExample,
} from '../../schemas/examples';
import { NO_NUL, OrgSlug } from '../../schemas/flaky-tests';

// eslint-disable-next-line no-control-regex -- rejecting control characters is the point.
const noControl = /^[^\u0000-\u001f\u007f]*$/;
const text = (max: number) =>
  z.string().trim().min(1).max(max).regex(noControl, { message: 'must not contain control characters' });

/** The app's body limit (api/app.ts), applied to multipart file data as it streams. */
export const UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
export const MAX_CODEOWNERS_BYTES = 1024 * 1024;
export const MAX_FILES = 100;

const Attempt = z
  .union([z.number(), z.string().trim().regex(/^\d+$/, { message: 'must be a whole number' })], {
    error: 'must be a whole number',
  })
  .transform((v) => Number(v))
  .pipe(z.number().int({ message: 'must be a whole number' }).min(1).max(1000));

/**
 * The examples' metadata: the CI job that ran the tests of the demo's PR #3 (which breaks them).
 * Every form field has one, because a docs page fills a multipart form field by field.
 */
const EXAMPLE_METADATA = {
  org_url_slug: EXAMPLE_ORG_SLUG,
  upload_id: 'demo-ci-1234-1',
  commit_sha: EXAMPLE_SHA,
  branch: `pr-${EXAMPLE_FAILED_PR}`,
  pr_number: EXAMPLE_FAILED_PR,
  job_name: 'test',
  job_url: 'https://ci.example.com/builds/1234',
  attempt: 1,
  codeowners: '* @demo/maintainers',
};

export const UploadMetadataFields = z.object({
  org_url_slug: OrgSlug,
  repo: RepoRef,
  upload_id: text(200)
    .describe('Your id for this upload; the same id again changes nothing.')
    .meta({ example: EXAMPLE_METADATA.upload_id }),
  commit_sha: text(100).meta({ example: EXAMPLE_METADATA.commit_sha }),
  branch: text(255).meta({ example: EXAMPLE_METADATA.branch }),
  pr_number: PrNumber.optional().meta({ example: EXAMPLE_METADATA.pr_number }),
  job_name: text(255).optional().meta({ example: EXAMPLE_METADATA.job_name }),
  job_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .regex(noControl, { message: 'must not contain control characters' })
    .optional()
    .meta({ example: EXAMPLE_METADATA.job_url }),
  attempt: Attempt.default(1),
  variant: z
    .string()
    .trim()
    .max(255)
    .regex(noControl, { message: 'must not contain control characters' })
    .default(''),
  codeowners: z
    .string()
    .max(MAX_CODEOWNERS_BYTES)
    .regex(NO_NUL, { message: 'must not contain NUL characters' })
    .superRefine((content, ctx) => {
      // The rule count and pattern length bound what matching can cost (flaky/codeowners.ts).
      if (content.length > MAX_CODEOWNERS_BYTES) return;
      const reading = readCodeowners(content);
      if (reading.kind === 'refused') ctx.addIssue({ code: 'custom', message: reading.problem });
    })
    .describe(
      `CODEOWNERS content at the commit: at most ${CODEOWNERS_LIMITS.maxRules} rules, patterns of at most ${CODEOWNERS_LIMITS.maxPatternChars} characters.`,
    )
    .optional()
    .meta({ example: EXAMPLE_METADATA.codeowners }),
});
export type UploadMetadataFields = z.infer<typeof UploadMetadataFields>;

export const UploadJsonRequest = withExample(
  UploadMetadataFields.extend({
    files: z
      .array(z.object({ name: text(255), content: z.string().min(1) }))
      .min(1)
      .max(MAX_FILES),
  }),
  // Sent again, the same upload_id answers created: false and changes nothing.
  {
    ...EXAMPLE_METADATA,
    repo: EXAMPLE_REPO,
    files: [{ name: 'test-results/junit.xml', content: EXAMPLE_JUNIT_XML }],
  },
);

const { repo: _repo, ...flatMetadata } = UploadMetadataFields.shape;

const MultipartFields = z.object({
  'repo.host': RepoRef.shape.host,
  'repo.owner': RepoRef.shape.owner,
  'repo.name': RepoRef.shape.name,
  ...flatMetadata,
  files: z
    .array(z.string().meta({ contentMediaType: 'application/xml' }))
    .min(1)
    .max(MAX_FILES)
    .describe('JUnit XML files: every file part other than `codeowners`, whatever its field name.'),
});

/** The multipart form for the document: `repo.*` flattened as metadataFromFields reads them. */
export const UploadMultipartForm = MultipartFields.meta({
  example: {
    ...EXAMPLE_METADATA,
    'repo.host': EXAMPLE_REPO.host,
    'repo.owner': EXAMPLE_REPO.owner,
    'repo.name': EXAMPLE_REPO.name,
  } satisfies Omit<z.input<typeof MultipartFields>, 'files'>,
});

export const UploadResponse = z.object({
  upload_id: z.string(),
  created: z.boolean().describe('False when this upload id was already stored: nothing changed.'),
  files: z.array(
    z.object({ name: z.string(), dialect: z.string(), tests: z.number().int(), attempts: z.number().int() }),
  ),
  tests: z.number().int(),
  results: z.number().int().describe('Non-skipped attempts.'),
  failures: z.number().int(),
  skipped: z.number().int(),
  infra: z.boolean().describe('Excluded from classification as an infrastructure failure (D4).'),
  reclassified: z.number().int(),
  status_changes: z.number().int(),
});

/** Multipart form fields (flat, `repo.host` style) → the object UploadMetadataFields parses. */
export function metadataFromFields(fields: ReadonlyMap<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const repo: Record<string, string> = {};
  for (const [name, value] of fields) {
    if (name.startsWith('repo.')) repo[name.slice('repo.'.length)] = value;
    else out[name] = value;
  }
  if (Object.keys(repo).length > 0) out.repo = repo;
  return out;
}
