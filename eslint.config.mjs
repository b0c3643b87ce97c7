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
