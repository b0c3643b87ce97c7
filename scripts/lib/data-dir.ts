/** The embedded defaults keep their state under .data/ (or RAILYARD_DATA_DIR), reused across starts. */
import fs from 'node:fs';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export function dataDir(): string {
  const dir = path.resolve(PROJECT_ROOT, process.env.RAILYARD_DATA_DIR ?? '.data');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function readState(name: string): string | undefined {
  const file = path.join(dataDir(), name);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

export function writeState(name: string, value: string): void {
  fs.writeFileSync(path.join(dataDir(), name), `${value}\n`, { mode: 0o600 });
}
