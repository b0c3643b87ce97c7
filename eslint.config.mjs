// One lint config for the whole tree. The workflow sandbox rules are the important part:
// workflow code must stay deterministic, so it may not import Node builtins or activity implementations.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', '.tools/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code is sandboxed: no Node builtins.',
          })),
          patterns: [
            {
              group: ['**/activities', '**/activities/**', '!**/activities/types', '!**/activities/types/**'],
              allowTypeImports: true,
              message: 'Workflow code may import activity types only (import type ...).',
            },
            {
              group: ['pg', 'fastify', 'prom-client', '@temporalio/client', '@temporalio/worker'],
              message: 'Not in workflow code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'The engine is pure: no Node builtins.' })),
          patterns: [
            {
              group: ['@temporalio/*', 'pg', 'fastify', 'zod', 'prom-client', '../*', '!../engine/*'],
              message: 'The engine imports only its own files.',
            },
          ],
        },
      ],
    },
  },
  {
    // The workflow contract (ADR 0007) is names and plain data: it imports the define* helpers, the
    // engine's index and its own files, so whoever imports it pulls in no workflow code.
    files: ['workflows/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|\\.\\./engine$|@temporalio/(workflow|common)$)',
              message:
                'The contract imports only its own files, ../engine and @temporalio/workflow or /common.',
            },
          ],
        },
      ],
    },
  },
  {
    // Each workflow reaches another only through the contract (its type name, id and messages), never
    // its code, and the engine only through its index: workflows/ has no circle.
    files: ['workflows/*/**/*.ts'],
    ignores: ['workflows/engine/**', 'workflows/contract/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!(contract|engine)$)[^.]',
              message: 'A workflow imports its own files, ../contract and ../engine; no other workflow.',
            },
          ],
        },
      ],
    },
  },
  {
    // The wall around the workflows (ADR 0007): outside workflows/, code knows them only through the
    // contract (ids, type names, messages, the repository key) and the engine's index (the pure rules
    // the API, metrics and benches share). The base rule's name, so a stricter
    // `@typescript-eslint/no-restricted-imports` of a folder (the classifier's) still applies beside it.
    files: ['api/**/*.ts', 'activities/**/*.ts', 'worker/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)workflows(/(?!(contract(/.*)?|engine(/index)?)$).*)?$',
              message:
                'Outside workflows/, import only workflows/contract and the engine index (workflows/engine).',
            },
          ],
        },
      ],
    },
  },
  {
    // The flaky-test classifier is pure like the engine: a function of the results and an explicit
    // evaluation time, so ingestion and the periodic re-evaluation reach the same statuses from the same
    // results. These rule names differ from any activities-wide rule's, so those still apply here too.
    files: ['activities/flaky/classification/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./)',
              message: 'The classifier is pure (no Node builtins, no I/O): it imports only its own files.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'fetch', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'crypto'].map(
          (name) => ({ name, message: 'The classifier is pure: no I/O, no timers, no clock.' }),
        ),
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'The classifier never reads a clock: take the evaluation time as an argument.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'The classifier never reads a clock: take the evaluation time as an argument.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'The classifier is deterministic: no randomness.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
