/**
 * Where railyard's environment variables are read, collected from the source itself (for
 * test/unit/platform/config-table.test.ts), so that a new setting needs no change to the test.
 *
 * Sources, each a map from variable name to the places that read it:
 * - config schemas: the UPPER_SNAKE keys of every file under the code folders that calls `parseEnv(`
 *   or exports a `...ConfigShape = {` (api/config.ts, worker/config.ts, the shared and GitHub shapes,
 *   scripts/lib/start-config.ts, and whatever config module comes next);
 * - direct reads in TypeScript: `process.env.X`, `process.env['X']`, `env.X` (a copy of process.env,
 *   as scripts/start.ts makes) and `const { X } = process.env`;
 * - shell scripts: `$RAILYARD_X` / `${RAILYARD_X...}` (only railyard's own namespace: the shell's
 *   other upper-case names are the script's own variables);
 * - docker-compose.yml: every variable the `api` and `worker` services set (YAML merge keys resolved).
 *
 * Not settings, so left out: TEST_* (set by scripts/test.ts for jest, never by a person) and the
 * platform's own variables a test command may inherit (DEFAULT_PASS_ENV: PATH, HOME, ...). The fuzz
 * harness's Python hook is test plumbing too and is not scanned.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_PASS_ENV } from '../../executor/command-runner';
import { PROJECT_ROOT } from '../../scripts/lib/data-dir';

/** The folders holding code that runs as railyard, the rooms (tests, benches and docs are not settings' readers). */
/** Top-level folders that hold no code running as railyard. */
const NOT_CODE = new Set([
  'test',
  'bench',
  'docs',
  'deploy',
  'migrations',
  'node_modules',
  'dist',
  'coverage',
]);
export const CODE_FOLDERS = fs
  .readdirSync(PROJECT_ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_CODE.has(e.name))
  .map((e) => e.name)
  .sort();

/** Variable name → the files (relative to the project) that read it. */
export type Readers = Map<string, Set<string>>;

const NAME = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Z0-9]+';
const SCHEMA_KEY = /^\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):/gm;
const DIRECT_READS = [
  new RegExp(`\\bprocess\\.env\\.(${NAME})\\b`, 'g'),
  new RegExp(`\\bprocess\\.env\\[\\s*['"\`](${NAME})['"\`]\\s*\\]`, 'g'),
  new RegExp(`\\benv\\.(${NAME})\\b`, 'g'),
  new RegExp(`\\benv\\[\\s*['"\`](${NAME})['"\`]\\s*\\]`, 'g'),
];
const DESTRUCTURED = /\{([^{}]*)\}\s*=\s*process\.env\b/g;
const SHELL_READ = /\$\{?(RAILYARD_[A-Z0-9_]+)/g;

/** A variable that is no setting: test plumbing or the platform's own. */
export function isExcluded(name: string): boolean {
  return name.startsWith('TEST_') || DEFAULT_PASS_ENV.includes(name);
}

/** Every file under the code folders, relative to the project root, in a stable order. */
export function codeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(rel);
      } else if (/\.(ts|sh)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const folder of CODE_FOLDERS) walk(folder);
  return out.sort();
}

const read = (rel: string): string => fs.readFileSync(path.join(PROJECT_ROOT, rel), 'utf8');

function add(readers: Readers, name: string, where: string): void {
  if (isExcluded(name)) return;
  const set = readers.get(name) ?? new Set<string>();
  set.add(where);
  readers.set(name, set);
}

/** Files whose UPPER_SNAKE object keys are environment settings (they parse or export a schema). */
export function configModules(files: readonly string[]): string[] {
  return files.filter((rel) => {
    if (!rel.endsWith('.ts')) return false;
    const text = read(rel);
    const callsParseEnv = /\bparseEnv\(/.test(text) && !/export function parseEnv\b/.test(text);
    return callsParseEnv || /export const \w+ConfigShape\s*=\s*\{/.test(text);
  });
}

/**
 * The config modules that export a loader (`loadApiConfig`, ...), safe to import: scripts that parse
 * their own settings run their `main` when imported, so only loader modules are ever loaded.
 */
export function loaderModules(files: readonly string[]): string[] {
  return configModules(files).filter((rel) => /export (?:const|function) load\w*Config\b/.test(read(rel)));
}

/** The keys of the config schemas. */
export function schemaVariables(files: readonly string[]): Readers {
  const readers: Readers = new Map();
  for (const rel of configModules(files)) {
    for (const m of read(rel).matchAll(SCHEMA_KEY)) add(readers, m[1]!, rel);
  }
  return readers;
}

/** The variables one file reads directly from the environment (`rel` says TypeScript or shell). */
export function readsIn(rel: string, text: string): string[] {
  const names: string[] = [];
  if (rel.endsWith('.sh')) {
    for (const m of text.matchAll(SHELL_READ)) names.push(m[1]!);
  } else {
    for (const pattern of DIRECT_READS) for (const m of text.matchAll(pattern)) names.push(m[1]!);
    for (const m of text.matchAll(DESTRUCTURED)) {
      for (const part of m[1]!.split(',')) {
        const key = part.trim().split(':')[0]!.trim();
        if (new RegExp(`^(?:${NAME})$`).test(key)) names.push(key);
      }
    }
  }
  return [...new Set(names.filter((name) => !isExcluded(name)))];
}

/** Variables read directly from the environment (TypeScript and shell). */
export function directReads(files: readonly string[]): Readers {
  const readers: Readers = new Map();
  for (const rel of files) for (const name of readsIn(rel, read(rel))) add(readers, name, rel);
  return readers;
}

/** The variables docker-compose.yml sets for the railyard services (`api`, `worker`). */
export function composeVariables(services: readonly string[] = ['api', 'worker']): Readers {
  const doc = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> | string[] }>;
  };
  const readers: Readers = new Map();
  for (const service of services) {
    const env = doc.services[service]?.environment;
    if (env === undefined)
      throw new Error(`docker-compose.yml has no environment for the ${service} service`);
    const names = Array.isArray(env) ? env.map((entry) => entry.split('=')[0]!) : Object.keys(env);
    for (const name of names) add(readers, name, `docker-compose.yml (${service})`);
  }
  return readers;
}

/** One row of the README's configuration table. */
export interface TableRow {
  line: number;
  /** The backticked names of the first cell (a row may document several variables). */
  names: string[];
  /** First-cell tokens that are not whole variable names (`_PORT` shorthand and the like). */
  partial: string[];
  process: string;
  /** The default cell, split on " / " when the row names several variables. */
  defaults: string[];
}

/** The rows of the table under README.md's `## Configuration` heading. */
export function configurationTable(readme = read('README.md')): TableRow[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => /^##\s+Configuration\s*$/.test(l));
  if (start < 0) throw new Error('README.md has no "## Configuration" section');
  const rows: TableRow[] = [];
  for (let i = start + 1; i < lines.length && !/^##\s/.test(lines[i]!); i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim());
    if (cells[0] === 'variable' || /^[-: ]+$/.test(cells[0] ?? '')) continue;
    const tokens = [...(cells[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const whole = new RegExp(`^(?:${NAME})$`);
    const names = tokens.filter((t) => whole.test(t));
    rows.push({
      line: i + 1,
      names,
      partial: tokens.filter((t) => !whole.test(t)),
      process: cells[1] ?? '',
      defaults: names.length > 1 ? (cells[2] ?? '').split(' / ') : [cells[2] ?? ''],
    });
  }
  return rows;
}

/** A default as the README writes it (an object, should a setting ever parse to one, as JSON). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${value}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** The executor's one required setting (a credential's shape; no such executor exists). */
const EXECUTOR_GIVEN: Record<string, string> = { RAILYARD_EXECUTOR_TOKEN: `rye_${'A'.repeat(43)}` };

/**
 * The defaults the code applies: what every exported `load*Config` returns for an environment holding
 * only DATABASE_URL (the one required setting), or only a credential (the executor refuses DATABASE_URL). A variable two loaders default differently throws.
 */
export async function codeDefaults(
  files: readonly string[],
): Promise<Map<string, { value: string; from: string }>> {
  const given: Record<string, string> = { DATABASE_URL: 'postgres://railyard@127.0.0.1:5432/railyard' };
  const defaults = new Map<string, { value: string; from: string }>();
  const conflicts: string[] = [];
  for (const rel of loaderModules(files)) {
    const mod = (await import(path.join(PROJECT_ROOT, rel))) as Record<string, unknown>;
    for (const [exported, fn] of Object.entries(mod)) {
      if (!/^load\w*Config$/.test(exported) || typeof fn !== 'function') continue;
      const load = fn as (env: Record<string, string>) => Record<string, unknown>;
      // The executor refuses DATABASE_URL (worker/executor-config.ts): it then loads from its one
      // required setting, its credential.
      let config: Record<string, unknown>;
      try {
        config = load(given);
      } catch {
        config = load(EXECUTOR_GIVEN);
      }
      for (const [name, value] of Object.entries(config)) {
        if (name in given || name in EXECUTOR_GIVEN || value === undefined) continue;
        const entry = { value: asText(value), from: `${rel} ${exported}` };
        const before = defaults.get(name);
        if (before && before.value !== entry.value)
          conflicts.push(`${name}: ${before.value} in ${before.from}, ${entry.value} in ${entry.from}`);
        defaults.set(name, entry);
      }
    }
  }
  if (conflicts.length > 0) throw new Error(`one variable, two defaults: ${conflicts.join('; ')}`);
  return defaults;
}

/** Union of several reader maps. */
export function merge(...maps: Readers[]): Readers {
  const out: Readers = new Map();
  for (const map of maps) for (const [name, where] of map) for (const w of where) add(out, name, w);
  return out;
}
