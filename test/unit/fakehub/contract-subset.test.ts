/**
 * The committed contract subset (test/support/fakehub/contract/rest-subset.json) is a valid OpenAPI
 * 3.0 document holding exactly the operations fakehub serves, and equal to a fresh extraction from
 * `@octokit/openapi` (a devDependency pinned to OPENAPI_SOURCE.version, so the check runs in every
 * `npm test`), so the fake cannot drift from GitHub's published description unnoticed. The validator
 * reads OpenAPI 3.0 `nullable` as GitHub means it.
 */
import { join } from 'node:path';
import { extractSubset, readDescription } from '../../../scripts/github/extract-openapi';
import { OPENAPI_SOURCE, SERVED_OPERATIONS } from '../../support/fakehub/contract/operations';
import subset from '../../support/fakehub/contract/rest-subset.json';
import { createContractValidator } from '../../support/fakehub/contract/validator';
import { devDependencies } from '../../../package.json';

const packageDir = join(__dirname, '..', '..', '..', 'node_modules', ...OPENAPI_SOURCE.package.split('/'));

describe('the committed contract subset', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(subset));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.0');
  });

  it('holds exactly the served operations, with the credential GitHub documents for them', () => {
    const paths = subset.paths as Record<
      string,
      Record<string, { 'x-github'?: { enabledForGitHubApps?: boolean } }>
    >;
    const present = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m} ${path}`),
    );
    expect(present.sort()).toEqual(SERVED_OPERATIONS.map((op) => `${op.method} ${op.path}`).sort());
    for (const op of SERVED_OPERATIONS) {
      // Operations an installation token may not call take the App's JWT ("You must use a JWT") or a
      // person's user access token (`GET /user/installations`).
      if (paths[op.path]![op.method]!['x-github']?.enabledForGitHubApps === false)
        expect(`${op.method} ${op.path} ${op.credential}`).not.toBe(
          `${op.method} ${op.path} installation-token`,
        );
    }
  });

  // Never skipped: without the package (npm install not run) readDescription fails, naming it.
  it(`equals a fresh extraction from ${OPENAPI_SOURCE.package}@${OPENAPI_SOURCE.version}`, () => {
    expect(devDependencies[OPENAPI_SOURCE.package]).toBe(OPENAPI_SOURCE.version);
    expect(extractSubset(readDescription(packageDir))).toEqual(subset);
  });
});

describe('the contract validator', () => {
  const validator = createContractValidator();

  it('routes multi-segment refs and keeps single-segment parameters to one segment', () => {
    expect(validator.match('GET', '/repos/acme/widgets/git/ref/heads/release/2026/q4')).toMatchObject({
      operationId: 'git/get-ref',
      pathParams: { owner: 'acme', repo: 'widgets', ref: 'heads/release/2026/q4' },
    });
    expect(validator.match('GET', '/repos/acme/widgets/rules/branches/a/b')).toMatchObject({
      operationId: 'repos/get-branch-rules',
      pathParams: { branch: 'a/b' },
    });
    expect(validator.match('GET', '/repos/acme/widgets/pulls/1/extra')).toBeNull();
    expect(validator.match('DELETE', '/repos/acme/widgets')).toBeNull();
  });

  it('accepts null where the description says nullable, and only there', () => {
    const op = validator.match('GET', '/repos/acme/widgets/commits/main/status')!;
    const status = {
      url: 'https://example.com/s',
      avatar_url: null,
      id: 1,
      node_id: 'S',
      state: 'success',
      description: null,
      target_url: null,
      context: 'ci',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      creator: null,
    };
    const body = {
      state: 'success',
      sha: 'a'.repeat(40),
      total_count: 1,
      statuses: [status],
      repository: null,
      commit_url: 'https://example.com/c',
      url: 'https://example.com/u',
    };
    expect(validator.validateResponse(op, 200, JSON.stringify({ ...body, repository: undefined }))).toEqual([
      "repos/get-combined-status-for-ref: 200 response body must have required property 'repository' (missingProperty: repository)",
    ]);
    expect(validator.validateResponse(op, 200, JSON.stringify(body))).toEqual([
      'repos/get-combined-status-for-ref: 200 response body/repository must be object (type: object)',
    ]);
    expect(validator.validateResponse(op, 304, '')).toEqual([]);
    expect(validator.validateResponse(op, 302, '')).toEqual([
      'repos/get-combined-status-for-ref: status 302 is not a documented response',
    ]);
  });
});
