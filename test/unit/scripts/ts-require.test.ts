/**
 * The require hook the tests and `npm start` run railyard's TypeScript processes with
 * (scripts/lib/ts-require.cjs): an edited file runs as edited (never a stale cached compile), types and
 * ES module syntax are compiled away, and a stack trace names the TypeScript line.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tsNode } from '../../../scripts/lib/ts-node';

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ts-require-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(file: string): string {
  const [command, args] = tsNode(file);
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return `${e.stdout}${e.stderr}`;
  }
}

test('an edited file runs as edited, its imports and types compiled away', () => {
  const lib = path.join(dir, 'lib.ts');
  const main = path.join(dir, 'main.ts');
  fs.writeFileSync(main, "import { word } from './lib';\nconst said: string = word();\nconsole.log(said);\n");
  fs.writeFileSync(lib, "export function word(): string {\n  return 'first';\n}\n");
  expect(run(main).trim()).toBe('first');
  expect(run(main).trim()).toBe('first'); // from the cache
  // Same length, same second: only the contents tell the two apart.
  fs.writeFileSync(lib, "export function word(): string {\n  return 'other';\n}\n");
  expect(run(main).trim()).toBe('other');
});

test('a stack trace names the TypeScript file and line', () => {
  const file = path.join(dir, 'throws.ts');
  fs.writeFileSync(
    file,
    'type T = { a: number };\nconst t: T = { a: 1 };\nif (t.a === 1) throw new Error("here");\n',
  );
  expect(run(file)).toContain(`${file}:3:`);
});
