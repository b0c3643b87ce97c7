/**
 * Compiled contract validators shared by the test files of one `npm test` run. Jest gives every test
 * file its own modules, so each file that starts fakehub compiled the same GitHub schemas again (about
 * a second of CPU a file). Here the first file to need a validator compiles it and writes Ajv's
 * standalone code for it under TEST_TMP (one folder per run, removed with it); later files evaluate
 * that code, which skips Ajv's code generation.
 *
 * Invariants: a cached validator is exactly what `ajv.compile` would give (Ajv's own standalone code of
 * the same schema under the same options, keyed by both); without TEST_TMP, or for a schema Ajv cannot
 * write as code, validators are compiled as before; a half-written file is never read (written aside,
 * then renamed).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Ajv from 'ajv/dist/core';
import type { ValidateFunction } from 'ajv/dist/core';
import standaloneCode from 'ajv/dist/standalone';

/** Where this run keeps compiled validators, or null outside `npm test`. */
function cacheDir(): string | null {
  const tmp = process.env.TEST_TMP;
  if (!tmp) return null;
  const dir = path.join(tmp, 'ajv-cache');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Evaluates standalone code (a CommonJS module exporting the validator) in this module's scope. */
function load(code: string): ValidateFunction {
  const module = { exports: {} as { default?: ValidateFunction } };
  // The code requires Ajv's runtime helpers and the formats module: this module's require finds both.
  // Code Ajv generated in this run from the committed contract, never anything received.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const evaluate = new Function('module', 'exports', 'require', code) as (
    m: typeof module,
    e: typeof module.exports,
    r: NodeJS.Require,
  ) => void;
  evaluate(module, module.exports, require);
  return (module.exports.default ?? module.exports) as ValidateFunction;
}

/**
 * `ajv.compile(schema)`, through the run's cache. `flavour` names the Ajv instance's options (two
 * validators with different options never share an entry).
 */
export function compileCached(ajv: Ajv, schema: object, flavour: string): ValidateFunction {
  const dir = cacheDir();
  if (dir === null) return ajv.compile(schema);
  const key = crypto
    .createHash('sha256')
    .update(flavour)
    .update('\0')
    .update(JSON.stringify(schema))
    .digest('hex');
  const file = path.join(dir, `${key}.js`);
  let code: string | null = null;
  try {
    code = fs.readFileSync(file, 'utf8');
  } catch {
    /* not compiled yet in this run */
  }
  if (code !== null) return load(code);
  const fn = ajv.compile(schema);
  try {
    const aside = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(aside, standaloneCode(ajv, fn));
    fs.renameSync(aside, file);
  } catch {
    /* a schema Ajv cannot write as code: compiled in each file, as before */
  }
  return fn;
}
