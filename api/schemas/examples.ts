/**
 * The values the OpenAPI document's examples are made of, so that "Try it out" on /v1/docs sends
 * requests that work on a fresh `npm start` + `npm run demo`: the organisation of the key `npm start`
 * creates (`dev`), the repository the first `npm run demo` builds (local/demo/app, branch main, PRs
 * #1–#6: #3 breaks the tests, #5 conflicts with #4) and the test its failing PR breaks (calc/adds).
 *
 * Rules: each request schema carries its whole example through `withExample` next to its definition
 * (the zod schema stays the one source: the document, and the test that sends every example through
 * the app, test/integration/api/openapi-examples.test.ts, read it from there); the example is
 * type-checked against the schema's input. Values that cannot be real on every instance (a webhook
 * subscription's id, a run id) are realistic in shape and answer 404. No example names a secret.
 */
import type { z } from 'zod';
import { testCaseId } from '../../flaky/identity';

/** Attaches a request example; it must be a valid input of the schema (tsc checks the shape). */
export function withExample<S extends z.ZodType>(schema: S, example: z.input<S>): S {
  return schema.meta({ example });
}

/** The organisation `npm start` creates for its development key (scripts/start.ts, ensureDevKey). */
export const EXAMPLE_ORG_SLUG = 'dev';

/** The repository the first `npm run demo` creates on the local git host (scripts/demo.ts). */
export const EXAMPLE_REPO = { host: 'local', owner: 'demo', name: 'app' } as const;

/** The demo's queue: its repository and target branch. */
export const EXAMPLE_QUEUE = { repo: EXAMPLE_REPO, targetBranch: 'main' } as const;

/** The demo's PR that breaks the tests (its record says which test failed, and links the log). */
export const EXAMPLE_FAILED_PR = 3;
/** The demo's PR that conflicts with #4. */
export const EXAMPLE_CONFLICTING_PR = 5;
/** The demo's first PR. */
export const EXAMPLE_PR = 1;

/** A commit sha, in shape (40 hex digits). */
export const EXAMPLE_SHA = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** A ticket key as Jira and Linear write them. */
export const EXAMPLE_TICKET = 'KAN-123';

/**
 * The demo's test command writes this report when PR #3 breaks addition (scripts/demo.ts, test.sh):
 * one suite `calc`, `adds` failing, `subtracts` passing.
 */
export const EXAMPLE_JUNIT_XML = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<testsuite name="calc" tests="2" failures="1">',
  '  <testcase classname="calc" name="adds" time="0.01"><failure message="expected 3, got -1"/></testcase>',
  '  <testcase classname="calc" name="subtracts" time="0.01"/>',
  '</testsuite>',
  '',
].join('\n');

/** The failing test of EXAMPLE_JUNIT_XML, as its report names it. */
export const EXAMPLE_TEST = { name: 'adds', classname: 'calc', parent: 'calc' } as const;

/** Its id, computed as Trunk's clients compute it (flaky/identity.ts). */
export const EXAMPLE_TEST_ID = testCaseId({
  organisationSlug: EXAMPLE_ORG_SLUG,
  repository: EXAMPLE_REPO,
  ...EXAMPLE_TEST,
});

const DAY_MS = 86_400_000;
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The 7 days up to the next midnight (UTC) after the API started: the widest range list-failing-tests
 * takes, and one that holds the demo's results when the demo ran this week. Computed once, when the
 * document is built; an older window is still a valid request.
 */
export function exampleWeek(now: number = Date.now()): { start_time: string; end_time: string } {
  const end = Math.ceil(now / DAY_MS) * DAY_MS;
  return { start_time: isoSeconds(end - 7 * DAY_MS), end_time: isoSeconds(end) };
}
