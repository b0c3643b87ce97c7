/**
 * `npm run typecheck-and-lint`: the TypeScript check (`tsc --noEmit -p tsconfig.json`) and ESLint
 * (`eslint --max-warnings 0 .`) on ONE TypeScript program.
 *
 * Why: ESLint's type-aware rules build their own program of the whole tree, the same one tsc builds, so
 * running the two commands one after the other built it twice: 26 + 46 CPU-seconds on two cores, against
 * 44 here (README, Development). `npm test` runs the check beside the tests, where every CPU-second it spends
 * is one the tests wait for.
 *
 * Rules: the program comes from tsconfig.json exactly as tsc reads it, and its diagnostics are tsc's
 * (`getPreEmitDiagnostics`: options, syntax, semantics, globals); ESLint reads eslint.config.mjs as its
 * CLI does and is handed the program instead of building one (typescript-eslint's `programs`). Any
 * TypeScript error, ESLint error or ESLint warning fails the run (exit 1), each printed as the CLIs print
 * them. `npm run typecheck` and `npm run lint` stay for running one alone.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
process.chdir(root);

function fail(message) {
  console.error(`typecheck-and-lint: ${message}`);
  process.exit(2);
}

const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
if (!configPath) fail('no tsconfig.json at the project root.');
let configError = null;
const config = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => (configError = d) },
);
if (!config || configError) {
  fail(
    `tsconfig.json cannot be read: ${ts.flattenDiagnosticMessageText(configError?.messageText ?? '', '\n')}`,
  );
}

const program = ts.createProgram({
  rootNames: config.fileNames,
  options: { ...config.options, noEmit: true },
  projectReferences: config.projectReferences,
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
});
const typeErrors = ts.getPreEmitDiagnostics(program);
const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
if (typeErrors.length > 0) {
  console.log(ts.formatDiagnosticsWithColorAndContext(typeErrors, host));
  console.log(`TypeScript: ${typeErrors.length} error${typeErrors.length === 1 ? '' : 's'}.`);
}

const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, project: null, programs: [program] } },
  },
});
const results = await eslint.lintFiles(['.']);
const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
if (problems > 0) {
  const formatter = await eslint.loadFormatter('stylish');
  console.log(await formatter.format(results));
}

if (typeErrors.length > 0 || problems > 0) process.exit(1);
