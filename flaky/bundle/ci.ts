/**
 * The CI facts of an upload, read from the variables the Trunk CLI captured in meta.json's `envs`:
 * the pull request, the job's name and link, and the attempt. Each is taken from the first CI system
 * whose variable is present and well-formed; one that is malformed is skipped rather than refusing
 * the bundle (these facts label results, they are not results). `TRUNK_PR_NUMBER` (the CLI's
 * `--pr-number`) wins over every CI variable, as it does in the CLI.
 *
 * Invariant: every value returned is bounded and free of control characters; a job URL is http(s).
 */

export interface CiDetails {
  readonly prNumber?: number;
  readonly jobName?: string;
  readonly jobUrl?: string;
  /** 1-based attempt of the CI job (a re-run of the whole job is attempt 2). */
  readonly attempt: number;
}

type Envs = ReadonlyMap<string, string>;

const MAX_PR_NUMBER = 2_147_483_647;
const MAX_ATTEMPT = 1_000;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

function positive(value: string | undefined, max: number): number | undefined {
  if (value === undefined || !/^\s*\d{1,10}\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= max ? n : undefined;
}

/** `refs/pull/123/merge` or `refs/pull/123/head` → 123. */
const githubPr = (ref: string | undefined) =>
  positive(/^refs\/pull\/(\d+)\//.exec(ref ?? '')?.[1], MAX_PR_NUMBER);
/** `https://github.com/acme/app/pull/123` → 123. */
const lastSegment = (url: string | undefined) => positive(url?.split('/').pop(), MAX_PR_NUMBER);

/** The PR number, from the first source that gives one. */
export function prNumberOf(envs: Envs): number | undefined {
  const pr = (name: string) => positive(envs.get(name), MAX_PR_NUMBER);
  const sources: readonly (() => number | undefined)[] = [
    () => pr('TRUNK_PR_NUMBER'),
    () => githubPr(envs.get('GITHUB_REF')),
    () => pr('CI_MERGE_REQUEST_IID'), // GitLab
    () => pr('BUILDKITE_PULL_REQUEST'), // "false" when the build is not for a PR
    () => pr('CIRCLE_PR_NUMBER'),
    () => lastSegment(envs.get('CIRCLE_PULL_REQUEST')),
    () => pr('CHANGE_ID'), // Jenkins multibranch
    () => pr('SEMAPHORE_GIT_PR_NUMBER'),
    () => pr('TRAVIS_PULL_REQUEST'),
  ];
  for (const source of sources) {
    const found = source();
    if (found !== undefined) return found;
  }
  return undefined;
}

function plain(value: string | undefined, max: number): string | undefined {
  const trimmed = value?.trim();
  return trimmed && trimmed.length <= max && !CONTROL.test(trimmed) ? trimmed : undefined;
}

function httpUrl(value: string | undefined): string | undefined {
  const text = plain(value, 2_000);
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? text : undefined;
  } catch {
    return undefined;
  }
}

export function jobNameOf(envs: Envs): string | undefined {
  for (const name of [
    'GITHUB_JOB',
    'CI_JOB_NAME',
    'BUILDKITE_LABEL',
    'CIRCLE_JOB',
    'JOB_NAME',
    'SEMAPHORE_JOB_NAME',
    'TRAVIS_JOB_NAME',
  ]) {
    const found = plain(envs.get(name), 255);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function jobUrlOf(envs: Envs): string | undefined {
  const get = (name: string) => envs.get(name)?.trim();
  const candidates: readonly (() => string | undefined)[] = [
    () => {
      const repo = get('GITHUB_REPOSITORY');
      const run = get('GITHUB_RUN_ID');
      if (!repo || !run) return undefined;
      const server = (get('GITHUB_SERVER_URL') || 'https://github.com').replace(/\/+$/, '');
      const attempt = positive(get('GITHUB_RUN_ATTEMPT'), MAX_ATTEMPT);
      return `${server}/${repo}/actions/runs/${run}${attempt === undefined ? '' : `/attempts/${attempt}`}`;
    },
    () => get('CI_JOB_URL'),
    () => {
      const build = get('BUILDKITE_BUILD_URL');
      const job = get('BUILDKITE_JOB_ID');
      return build && job ? `${build}#${job}` : build;
    },
    () => get('CIRCLE_BUILD_URL'),
    () => get('BUILD_URL'), // Jenkins
    () => {
      const org = get('SEMAPHORE_ORGANIZATION_URL');
      const project = get('SEMAPHORE_PROJECT_ID');
      const job = get('SEMAPHORE_JOB_ID');
      return org && project && job ? `${org.replace(/\/+$/, '')}/projects/${project}/jobs/${job}` : undefined;
    },
    () => get('TRAVIS_JOB_WEB_URL'),
  ];
  for (const candidate of candidates) {
    const found = httpUrl(candidate());
    if (found !== undefined) return found;
  }
  return undefined;
}

export function attemptOf(envs: Envs): number {
  const github = positive(envs.get('GITHUB_RUN_ATTEMPT'), MAX_ATTEMPT);
  if (github !== undefined) return github;
  // Buildkite counts retries of the job from 0.
  const retries = envs.get('BUILDKITE_RETRY_COUNT');
  if (retries !== undefined && /^\s*\d{1,4}\s*$/.test(retries))
    return Math.min(MAX_ATTEMPT, Number(retries) + 1);
  return 1;
}

export function ciDetailsOf(envs: Envs): CiDetails {
  const prNumber = prNumberOf(envs);
  const jobName = jobNameOf(envs);
  const jobUrl = jobUrlOf(envs);
  return {
    ...(prNumber === undefined ? {} : { prNumber }),
    ...(jobName === undefined ? {} : { jobName }),
    ...(jobUrl === undefined ? {} : { jobUrl }),
    attempt: attemptOf(envs),
  };
}
