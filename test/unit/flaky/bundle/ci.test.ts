/** CI facts from the variables the CLI captured: PR number, job name and link, attempt. */
import { ciDetailsOf } from '../../../../flaky/bundle';

const of = (envs: Record<string, string>) => ciDetailsOf(new Map(Object.entries(envs)));

describe('ciDetailsOf', () => {
  it('reads a GitHub Actions pull request run', () => {
    expect(
      of({
        GITHUB_REF: 'refs/pull/42/merge',
        GITHUB_JOB: 'unit',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_SERVER_URL: 'https://ghe.example.com',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_RUN_ID: '123',
      }),
    ).toEqual({
      prNumber: 42,
      jobName: 'unit',
      jobUrl: 'https://ghe.example.com/acme/shop/actions/runs/123/attempts/2',
      attempt: 2,
    });
  });

  it('lets TRUNK_PR_NUMBER win over the CI variables', () => {
    expect(of({ TRUNK_PR_NUMBER: '7', GITHUB_REF: 'refs/pull/42/merge' }).prNumber).toBe(7);
  });

  it.each([
    [
      { CI_MERGE_REQUEST_IID: '5', CI_JOB_NAME: 'rspec', CI_JOB_URL: 'https://gitlab.example.com/-/jobs/9' },
      5,
      'rspec',
      'https://gitlab.example.com/-/jobs/9',
      1,
    ],
    [
      {
        BUILDKITE_PULL_REQUEST: '8',
        BUILDKITE_LABEL: ':jest:',
        BUILDKITE_BUILD_URL: 'https://buildkite.com/a/b/builds/3',
        BUILDKITE_JOB_ID: 'j1',
        BUILDKITE_RETRY_COUNT: '1',
      },
      8,
      ':jest:',
      'https://buildkite.com/a/b/builds/3#j1',
      2,
    ],
    [{ BUILDKITE_PULL_REQUEST: 'false' }, undefined, undefined, undefined, 1],
    [
      {
        CIRCLE_PULL_REQUEST: 'https://github.com/acme/shop/pull/77',
        CIRCLE_JOB: 'test',
        CIRCLE_BUILD_URL: 'https://circleci.com/gh/acme/shop/1',
      },
      77,
      'test',
      'https://circleci.com/gh/acme/shop/1',
      1,
    ],
    [
      { CHANGE_ID: '3', JOB_NAME: 'shop/PR-3', BUILD_URL: 'https://jenkins.example.com/job/shop/3/' },
      3,
      'shop/PR-3',
      'https://jenkins.example.com/job/shop/3/',
      1,
    ],
  ])('reads %j', (envs, prNumber, jobName, jobUrl, attempt) => {
    expect(of(envs)).toEqual({
      ...(prNumber === undefined ? {} : { prNumber }),
      ...(jobName === undefined ? {} : { jobName }),
      ...(jobUrl === undefined ? {} : { jobUrl }),
      attempt,
    });
  });

  it('skips malformed values instead of refusing: a push ref, huge numbers, control characters, non-http links', () => {
    expect(
      of({
        GITHUB_REF: 'refs/heads/main',
        TRUNK_PR_NUMBER: '99999999999',
        GITHUB_JOB: 'a\nb',
        CI_JOB_URL: 'javascript:alert(1)',
        GITHUB_RUN_ATTEMPT: '0',
      }),
    ).toEqual({ attempt: 1 });
  });
});
