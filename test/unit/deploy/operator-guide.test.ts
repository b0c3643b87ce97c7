/**
 * docs/deployment.md against the files it documents: every variable compose requires is explained
 * there, every command it gives for the image runs a script the image contains (dist/ is compiled
 * from scripts/), and the README points to it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readText, ROOT } from './deploy-files';

const guide = readText('docs/deployment.md');

test('every variable the compose file requires is explained in the guide', () => {
  const required = new Set([...readText('docker-compose.yml').matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]!));
  expect(required.size).toBeGreaterThan(0);
  for (const v of required) expect(guide).toContain(`| \`${v}\``);
});

test('the key, repository and executor commands run compiled scripts that exist', () => {
  const scripts = [...guide.matchAll(/node dist\/scripts\/([\w-]+)\.js/g)].map((m) => m[1]!);
  expect(new Set(scripts)).toEqual(new Set(['keys', 'repos', 'executors']));
  for (const s of scripts) expect(fs.existsSync(path.join(ROOT, 'scripts', `${s}.ts`))).toBe(true);
  expect(guide).toMatch(/docker compose exec api node dist\/scripts\/keys\.js create --org \S+/);
  expect(guide).toMatch(/docker compose exec api node dist\/scripts\/repos\.js add --org \S+ \S+/);
  expect(guide).toMatch(/docker compose exec api node dist\/scripts\/executors\.js add \S+/);
});

test('the README links the guide', () => {
  expect(readText('README.md')).toContain('docs/deployment.md');
});
