/**
 * A fresh clone's `npm start` and `npm test` leave its tracked files as they are (issue 29): the
 * install in scripts/ensure-deps.sh never writes package-lock.json, so the lock file itself must be
 * complete and in sync with package.json. Checked here cheaply, without a registry or an install:
 *  - the install command carries `--no-save` (npm then installs from the lock and writes neither file);
 *  - the lock records package.json's ranges as they are, and each locked top-level version satisfies
 *    its range (an edit of package.json without `npm install` fails here, not on a user's clone);
 *  - every dependency and optional dependency a locked package names resolves, by Node's lookup, to a
 *    locked package: a lock written by an npm that left out other platforms' optional packages (the
 *    `@swc/core-darwin-arm64` of ADR 0004) is what a plain `npm install` rewrote on a fresh clone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const read = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

interface LockedPackage {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const manifest = read('package.json') as Manifest;
const lock = read('package-lock.json') as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};

/** Where Node finds `name` from the package at `from` (a lock key such as `node_modules/a/node_modules/b`). */
export function resolveLocked(packages: Record<string, unknown>, from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (base === '') return null;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/** Whether `version` satisfies the plain ranges package.json uses: exact, ^x.y.z, ~x.y.z. */
export function satisfies(version: string, range: string): boolean {
  const parse = (v: string) => v.split('.').map(Number) as [number, number, number];
  const m = /^([\^~]?)(\d+\.\d+\.\d+)$/.exec(range);
  if (!m || !/^\d+\.\d+\.\d+$/.test(version)) return version === range;
  const [op, base] = [m[1], parse(m[2]!)];
  const v = parse(version);
  const atLeast = v[0] !== base[0] ? v[0] > base[0] : v[1] !== base[1] ? v[1] > base[1] : v[2] >= base[2];
  switch (op) {
    case '':
      return version === m[2];
    case '~':
      return atLeast && v[0] === base[0] && v[1] === base[1];
    default:
      // ^: same major (same minor below 1.0.0, as npm reads it).
      return atLeast && v[0] === base[0] && (base[0] !== 0 || v[1] === base[1]);
  }
}

it('installs with --no-save, so the install cannot write package-lock.json', () => {
  const script = readFileSync(join(ROOT, 'scripts', 'ensure-deps.sh'), 'utf8');
  const installs = script.split('\n').filter((line) => /^\s*npm (install|i|ci)\b/.test(line));
  expect(installs).toHaveLength(1);
  expect(installs[0]).toMatch(/^\s*npm install --no-save\b/);
});

it("records package.json's ranges as they are, each satisfied by the locked version", () => {
  const root = lock.packages[''];
  expect(lock.lockfileVersion).toBe(3);
  expect(root?.dependencies).toEqual(manifest.dependencies);
  expect(root?.devDependencies).toEqual(manifest.devDependencies);
  const unsatisfied = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })
    .map(([name, range]) => ({ name, range, locked: lock.packages[`node_modules/${name}`]?.version }))
    .filter(({ range, locked }) => locked === undefined || !satisfies(locked, range));
  expect(unsatisfied).toEqual([]);
});

it('locks every package a locked package depends on, optional ones of other platforms included', () => {
  const missing: string[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    const names = Object.keys({ ...entry.dependencies, ...entry.optionalDependencies });
    for (const name of names)
      if (resolveLocked(lock.packages, key, name) === null) missing.push(`${key || '(root)'} → ${name}`);
  }
  expect(missing).toEqual([]);
});

describe('the checks themselves', () => {
  it('resolve as Node does, from the nearest node_modules outwards', () => {
    const packages = { 'node_modules/a': {}, 'node_modules/a/node_modules/b': {}, 'node_modules/c': {} };
    expect(resolveLocked(packages, 'node_modules/a/node_modules/b', 'c')).toBe('node_modules/c');
    expect(resolveLocked(packages, 'node_modules/a', 'b')).toBe('node_modules/a/node_modules/b');
    expect(resolveLocked(packages, 'node_modules/c', 'b')).toBeNull();
  });

  it.each([
    ['1.2.3', '1.2.3', true],
    ['1.2.4', '1.2.3', false],
    ['1.9.0', '^1.2.3', true],
    ['2.0.0', '^1.2.3', false],
    ['1.2.2', '^1.2.3', false],
    ['0.2.9', '^0.2.1', true],
    ['0.3.0', '^0.2.1', false],
    ['5.9.3', '~5.9.0', true],
    ['5.10.0', '~5.9.0', false],
  ])('%s against %s: %s', (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });
});
