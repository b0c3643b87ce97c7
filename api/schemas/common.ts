/**
 * Request fields shared by the merge-queue endpoints (Trunk v1 envelope): `repo {host, owner, name}`,
 * `targetBranch`, `pr.number`. Real Trunk clients send `pr.number` as a string, so a numeric string is
 * accepted; enums are accepted in any case and answered in lower case.
 */
import { z } from 'zod';
import {
  BRANCH_PATTERN,
  checkBranchName,
  checkRepositoryKey,
  REPO_HOST_PATTERN,
  REPO_NAME_PATTERN,
  REPO_OWNER_PATTERN,
} from '../../git/names';
import type { RepositoryKey } from '../../contract';
import { EXAMPLE_QUEUE, EXAMPLE_REPO, withExample } from './examples';

// eslint-disable-next-line no-control-regex -- rejecting control characters is the point.
const noControl = /^[^\u0000-\u001f\u007f]*$/;

const text = (max: number) =>
  z.string().trim().min(1).max(max).regex(noControl, { message: 'must not contain control characters' });

// The repository key under its wire name: it parses to the contract's RepositoryKey (`satisfies`
// below holds the two together), so routes hand it on as is. The document carries the name rules as
// patterns (looser than the checks, which stay the authority: see git/names.ts); `meta`
// only changes the document, validation is the chain before it.
export const RepoRef = z
  .object({
    host: text(255).meta({ pattern: REPO_HOST_PATTERN, example: EXAMPLE_REPO.host }),
    owner: text(255).meta({ pattern: REPO_OWNER_PATTERN, example: EXAMPLE_REPO.owner }),
    name: text(255).meta({ pattern: REPO_NAME_PATTERN, example: EXAMPLE_REPO.name }),
  })
  // Names reach git: the same rules as the git host, so a bad name is a 400 here, never a git option.
  .superRefine((repo, ctx) => {
    const check = checkRepositoryKey(repo);
    if (check.ok) return;
    const [field = 'repo', ...problem] = check.problem.split(' ');
    ctx.addIssue({ code: 'custom', path: [field.replace(/^repo\./, '')], message: problem.join(' ') });
  })
  .describe(
    'Repository as Trunk names it; owner may contain "/" (GitLab subgroups).',
  ) satisfies z.ZodType<RepositoryKey>;

export const TargetBranch = text(255)
  .superRefine((branch, ctx) => {
    const check = checkBranchName(branch);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.problem.replace(/^branch name /, '') });
  })
  .meta({ pattern: BRANCH_PATTERN })
  .describe('The branch the queue merges into.');

/** A PR number as a JSON number or a numeric string (the official merge-action sends "123"). */
export const PrNumber = z
  .union(
    [z.number(), z.string().trim().regex(/^\d+$/, { message: 'must be a number or a numeric string' })],
    {
      error: 'must be a number or a numeric string',
    },
  )
  .transform((v) => Number(v))
  .pipe(
    // Range first: 1e300 is out of range, which says more than "not a (safe) integer".
    z
      .number()
      .min(1, { message: 'must be at least 1' })
      .max(4_294_967_295, { message: 'must be at most 4294967295' })
      .int({ message: 'must be an integer' }),
  );

export const PrRef = z.object({ number: PrNumber });

export const QueueRequest = withExample(
  z.object({ repo: RepoRef, targetBranch: TargetBranch }),
  EXAMPLE_QUEUE,
);

/** A case-insensitive enum: accepts `SINGLE` or `single`, yields the lower-case value. */
export function looseEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(values, { error: `must be one of: ${values.join(', ')}` }));
}

/** Empty success body of Trunk's action endpoints. */
export const Empty = z.object({});
