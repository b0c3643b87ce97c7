/**
 * What scripts/test.sh started for this run. Integration tests call these; a missing variable means
 * the test was run without the launcher, and the message says how to run it.
 */
export function requireTestEnv(
  name:
    | 'TEST_DATABASE_URL'
    | 'TEST_PG_ADMIN_URL'
    | 'TEST_PG_TEMPLATE'
    | 'TEST_TEMPORAL_ADDRESS'
    | 'TEST_WORKFLOW_BUNDLE'
    | 'TEST_TMP'
    | 'TEST_TEMPORAL_CLI',
): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: run integration tests through \`npm test\` (scripts/test.sh starts PostgreSQL and Temporal).`,
    );
  return value;
}
