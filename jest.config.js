/**
 * Unit tests (test/unit) need nothing but Node. Everything else talks to the real Temporal and
 * PostgreSQL that scripts/test.sh starts and announces through RAILYARD_TEST_* variables.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
