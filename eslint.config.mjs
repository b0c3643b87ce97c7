// One lint config for the whole tree. The walls between the rooms (which room may import which, the
// workflow sandbox, the pure engine and classifier, the executor, pg and SQL only in stores) are one
// rule, railyard/walls, in scripts/lint/walls.mjs; docs/adr/0013-rooms.md says why each stands.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { wallsPlugin } from './scripts/lint/walls.mjs';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.data/**',
      '.tools/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { railyard: wallsPlugin },
    rules: {
      'railyard/walls': 'error',
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
    // The engine, the classifier and workflow code never read a clock or a random source of their own
    // (the workflows get Temporal's deterministic ones; the engine and the classifier take `now`).
    files: ['engine/**/*.ts', 'flaky/classification/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'fetch', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'crypto'].map(
          (name) => ({ name, message: 'Pure code: no I/O, no timers, no clock.' }),
        ),
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Pure code never reads a clock: take the time as an argument.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Pure code never reads a clock: take the time as an argument.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'Pure code is deterministic: no randomness.',
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
