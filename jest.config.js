/**
 * Unit tests (test/unit) need nothing but Node. Everything else talks to the real Temporal and
 * PostgreSQL that scripts/test.sh starts and announces through TEST_* variables.
 *
 * Jest on Node 20 cannot require ES modules, and some dependencies ship only those (content-disposition,
 * cookie, ...). They are found here by their `"type": "module"` and compiled to CommonJS by swc.
 */
const fs = require('node:fs');
const path = require('node:path');

function esmOnlyPackages() {
  const root = path.join(__dirname, 'node_modules');
  if (!fs.existsSync(root)) return [];
  const names = [];
  for (const entry of fs.readdirSync(root)) {
    const dirs = entry.startsWith('@')
      ? fs.readdirSync(path.join(root, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of dirs) {
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(root, name, 'package.json'), 'utf8'));
        if (pkg.type === 'module') names.push(name.replace(/[.+]/g, '\\$&'));
      } catch {
        /* not a package */
      }
    }
  }
  return names;
}

/** @type {import('jest').Config} */
module.exports = {
  // jest's Node environment, recording each file's CPU for the end of the run's summary.
  testEnvironment: '<rootDir>/test/support/jest-cpu-environment.js',
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // @fastify/cookie is CommonJS but loads `cookie` (ES modules only) with import(), which jest's VM
  // refuses; compiled too, its import() becomes a require of the compiled module.
  transformIgnorePatterns: [`/node_modules/(?!(${[...esmOnlyPackages(), '@fastify/cookie'].join('|')})/)`],
  // ES-module-only exports without a `require` condition, which jest's resolver cannot pick.
  moduleNameMapper: {
    '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js',
  },
  // jest's runtime, keeping V8's compiled code of each module for the worker's later test files.
  runtime: '<rootDir>/test/support/jest-code-cache-runtime.js',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
  // Four on two cores: the crash and GitHub stories spend much of their time waiting (heartbeat
  // timeouts, restarts), and with two workers the CPU sat 30-70 % idle once the check was done
  // (/proc/stat, a quiet run: 642 s); three kept it busier (504 s), four filled the rest (469 s, same
  // code). The two failures four once showed were real bugs the extra load uncovered (a sandbox gate
  // and a tar reader), fixed with regression tests.
  maxWorkers: 4,
  // The longest files first (test/durations.json); the slowest files and the totals at the end.
  testSequencer: '<rootDir>/test/support/jest-sequencer.js',
  reporters: ['default', '<rootDir>/test/support/jest-slowest-reporter.js'],
};
