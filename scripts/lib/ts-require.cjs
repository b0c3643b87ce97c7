/**
 * A require hook for railyard's own TypeScript, for the processes scripts/lib/ts-node.ts starts (the
 * services `npm start` runs, and the API, worker and command-line processes the tests start).
 *
 * Why not tsx's loader, which did this before: a process loading the API's modules through it spent
 * 1.15 CPU-seconds before its first line ran, against 0.45 through this hook with a warm cache. `npm test`
 * starts about a hundred such processes on two cores, every one of them waited for by some test.
 *
 * Rules:
 *  - Only `.ts` files outside node_modules are compiled, by esbuild (what tsx uses too: the same
 *    transform, TypeScript's types dropped, ES module syntax to CommonJS), with inline source maps and
 *    source maps switched on, so a stack trace names the TypeScript line.
 *  - The output is cached in node_modules/.cache/railyard-ts under a hash of the file's path, its exact
 *    contents and esbuild's version, so an edited file is compiled again and nothing stale is ever run.
 *    A cache entry is written to a temporary name and renamed, so processes starting together never
 *    read half of one; a cache that cannot be written only costs the compile.
 *  - Dependencies are loaded by Node itself, unchanged.
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
// The esbuild tsx itself runs (a dependency of tsx's, not of ours): the same transform, one copy.
const esbuild = require(
  require.resolve('esbuild', { paths: [path.dirname(require.resolve('tsx/package.json'))] }),
);

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'railyard-ts');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
// tsconfig.json's compiler options, as tsx passed them: some change the emitted code (the target decides
// class-field semantics, for one).
const TSCONFIG = fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8');
const COMPILER_OPTIONS = JSON.parse(TSCONFIG).compilerOptions;
const SALT = `esbuild ${esbuild.version}; node ${process.versions.node}; ${TSCONFIG}; v1`;

process.setSourceMapsEnabled(true);

function compile(source, filename) {
  return esbuild.transformSync(source, {
    loader: 'ts',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    sourcemap: 'inline',
    sourcefile: filename,
    tsconfigRaw: { compilerOptions: COMPILER_OPTIONS },
  }).code;
}

function cached(source, filename) {
  const key = crypto
    .createHash('sha256')
    .update(SALT)
    .update('\0')
    .update(filename)
    .update('\0')
    .update(source);
  const file = path.join(CACHE, `${key.digest('hex')}.js`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    const code = compile(source, filename);
    try {
      fs.mkdirSync(CACHE, { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, code);
      fs.renameSync(temporary, file);
    } catch {
      /* a read-only or full disk: compiled again next time */
    }
    return code;
  }
}

const original = require.extensions['.ts'];
require.extensions['.ts'] = function loadTypeScript(module, filename) {
  if (filename.includes(NODE_MODULES)) {
    if (original) return original(module, filename);
    throw new Error(`${filename}: TypeScript inside node_modules is not compiled by railyard's loader.`);
  }
  module._compile(cached(fs.readFileSync(filename, 'utf8'), filename), filename);
};
