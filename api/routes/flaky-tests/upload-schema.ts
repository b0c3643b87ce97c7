/**
 * The upload request (our design; the spec has none). Metadata fields are the same in both forms:
 *  - `multipart/form-data`: one form field per metadata field (`repo.host`, `repo.owner`,
 *    `repo.name`, `upload_id`, …; numbers as text), CODEOWNERS as a `codeowners` field or file
 *    part, and every other file part is a JUnit XML file, streamed into the parser as it arrives;
 *  - `application/json`: the metadata plus `files: [{ name, content }]` with the XML as strings.
 */
import { z } from 'zod';
import { CODEOWNERS_LIMITS, readCodeowners } from '../../../activities/flaky/codeowners';
import { PrNumber, RepoRef } from '../../schemas/common';
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

export const UploadMetadataFields = z.object({
  org_url_slug: OrgSlug,
  repo: RepoRef,
  upload_id: text(200).describe('Your id for this upload; the same id again changes nothing.'),
  commit_sha: text(100),
  branch: text(255),
  pr_number: PrNumber.optional(),
  job_name: text(255).optional(),
  job_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .regex(noControl, { message: 'must not contain control characters' })
    .optional(),
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
      // The rule count and pattern length bound what matching can cost (activities/flaky/codeowners.ts).
      if (content.length > MAX_CODEOWNERS_BYTES) return;
      const reading = readCodeowners(content);
      if (reading.kind === 'refused') ctx.addIssue({ code: 'custom', message: reading.problem });
    })
    .describe(
      `CODEOWNERS content at the commit: at most ${CODEOWNERS_LIMITS.maxRules} rules, patterns of at most ${CODEOWNERS_LIMITS.maxPatternChars} characters.`,
    )
    .optional(),
});
export type UploadMetadataFields = z.infer<typeof UploadMetadataFields>;

export const UploadJsonRequest = UploadMetadataFields.extend({
  files: z
    .array(z.object({ name: text(255), content: z.string().min(1) }))
    .min(1)
    .max(MAX_FILES),
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
