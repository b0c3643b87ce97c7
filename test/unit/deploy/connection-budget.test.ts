/**
 * The compose deployment's PostgreSQL connection budget (issue 27): Temporal's pools, every api and
 * worker replica's pools and the superuser's reserved slots add up under max_connections at the scale
 * the compose file states (`--scale api=A --scale worker=W`), computed from the settings themselves —
 * the env values, the config schemas' parsing and the pool factory's default — not from the comment.
 * Each role's CONNECTION LIMIT (the roles job) keeps it to its share. Also: Temporal's history shards are set explicitly, and the stated scale can actually start (host
 * ports and `edge` addresses for every api replica, a work folder of its own for every worker).
 */
import { loadApiConfig } from '../../../api/config';
import { createPool } from '../../../stores/db';
import { loadCompose, parsePort, parseVolume, readText } from './deploy-files';

const text = readText('docker-compose.yml');
const compose = loadCompose(text);
const { services } = compose;
const env = (name: string): Record<string, string> => services[name]?.environment ?? {};

/** `-c name=value` settings of the postgresql service's command. */
function serverSettings(): Record<string, number> {
  const args = ([] as string[]).concat(services.postgresql?.command ?? []);
  const settings: Record<string, number> = {};
  args.forEach((arg, i) => {
    if (args[i - 1] !== '-c') return;
    const [name, value] = arg.split('=');
    settings[name!] = Number(value);
  });
  return settings;
}

/** The services Temporal's one server process runs, each opening its own persistence pools. */
const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'];

function temporalConnections(): number {
  const e = env('temporal');
  for (const k of ['SQL_MAX_CONNS', 'SQL_VIS_MAX_CONNS']) {
    // Set explicitly: the image's defaults (20 and 10) are not part of this file.
    expect({ [k]: /^\d+$/.test(e[k] ?? '') }).toEqual({ [k]: true });
  }
  expect(Number(e.SQL_MAX_IDLE_CONNS)).toBeLessThanOrEqual(Number(e.SQL_MAX_CONNS));
  expect(Number(e.SQL_VIS_MAX_IDLE_CONNS)).toBeLessThanOrEqual(Number(e.SQL_VIS_MAX_CONNS));
  return TEMPORAL_SERVICES.length * (Number(e.SQL_MAX_CONNS) + Number(e.SQL_VIS_MAX_CONNS));
}

function apiConnections(): number {
  const given = Object.fromEntries(
    Object.entries(env('api')).filter(([k]) => /^RAILYARD_API_(KEY_)?POOL_SIZE$/.test(k)),
  );
  expect(Object.keys(given).sort()).toEqual(['RAILYARD_API_KEY_POOL_SIZE', 'RAILYARD_API_POOL_SIZE']);
  const config = loadApiConfig({ DATABASE_URL: 'postgres://u:p@db:5432/railyard', ...given });
  return config.RAILYARD_API_POOL_SIZE + config.RAILYARD_API_KEY_POOL_SIZE;
}

async function workerConnections(): Promise<number> {
  // The worker's pool is stores/db.ts's default size (worker/main.ts passes none); making a pool
  // opens no connection.
  const pool = createPool('postgres://u:p@127.0.0.1:1/railyard');
  const max = (pool as unknown as { options: { max: number } }).options.max;
  await pool.end();
  expect(readText('worker/main.ts')).toMatch(
    /createPool\(config\.DATABASE_URL, \{ applicationName: '[\w-]+' \}\)/,
  );
  return max;
}

/** The scale the file states: `--scale api=A --scale worker=W`. */
function statedScale(): { api: number; worker: number } {
  const m = /--scale api=(\d+) --scale worker=(\d+)/.exec(text);
  expect(m).not.toBeNull();
  return { api: Number(m![1]), worker: Number(m![2]) };
}

test('the pools at the stated scale fit under max_connections less the superuser reserve', async () => {
  const settings = serverSettings();
  expect(settings.max_connections).toEqual(expect.any(Number));
  expect(settings.superuser_reserved_connections).toEqual(expect.any(Number));
  const budget = settings.max_connections! - settings.superuser_reserved_connections!;
  const temporal = temporalConnections();
  const api = apiConnections();
  const worker = await workerConnections();
  const scale = statedScale();
  const total = temporal + scale.api * api + scale.worker * worker;
  expect(total).toBeLessThanOrEqual(budget);

  // The comment's arithmetic is the same as this one's.
  expect(text).toContain(`max_connections=${settings.max_connections}`);
  expect(text).toMatch(new RegExp(`=\\s+${temporal}\\b`));
  expect(text).toMatch(new RegExp(`=\\s+${api}\\b`));
  expect(text).toContain(`per replica ${worker} `);
  expect(text).toContain(`<= ${budget}`);
  expect(text).toContain(`${temporal} + ${scale.api * api} + ${scale.worker * worker} = ${total}`);
});

test("each role's CONNECTION LIMIT holds its pools at the stated scale, and the two fit in the budget", async () => {
  const command = ([] as string[]).concat(services['postgresql-roles']?.command ?? []).join(' ');
  const limit = (role: string) => Number(new RegExp(`-v ${role}_connection_limit=(\\d+)`).exec(command)?.[1]);
  const { api, worker } = statedScale();
  const settings = serverSettings();
  expect(limit('temporal')).toBeGreaterThanOrEqual(temporalConnections());
  expect(limit('railyard')).toBeGreaterThanOrEqual(
    api * apiConnections() + worker * (await workerConnections()),
  );
  expect(limit('temporal') + limit('railyard')).toBeLessThanOrEqual(
    settings.max_connections! - settings.superuser_reserved_connections!,
  );
  expect(text).toContain(`temporal ${limit('temporal')}, railyard ${limit('railyard')}`);
  expect(readText('deploy/postgres/roles.sql')).toMatch(
    /ALTER ROLE :"railyard_role" CONNECTION LIMIT :railyard_connection_limit;/,
  );
});

test('the stated number of api replicas can start: a host port and an edge address each', () => {
  const { api } = statedScale();
  const ports = (services.api?.ports ?? []).map(parsePort);
  expect(ports).toHaveLength(1);
  const [first, last = first] = ports[0]!.published!.split('-').map(Number);
  expect(last! - first! + 1).toBeGreaterThanOrEqual(api);
  // The `edge` subnet: less the network and broadcast addresses, the gateway and caddy's fixed one.
  const edge = compose.networks?.edge as { ipam: { config: { subnet: string }[] } };
  const prefix = Number(edge.ipam.config[0]!.subnet.split('/')[1]);
  expect(2 ** (32 - prefix) - 4).toBeGreaterThanOrEqual(api);
});

test('every worker replica has a work folder of its own (mirrors are not shared between processes)', () => {
  const named = Object.keys(compose.volumes ?? {});
  const work = (services.worker?.volumes ?? []).find((v) =>
    (typeof v === 'string' ? v : v.target).endsWith('/var/lib/railyard/work'),
  );
  expect(work).toBeDefined();
  const parsed = typeof work === 'string' && !work.includes(':') ? undefined : parseVolume(work!, named);
  // An anonymous volume (a path alone) is made per container; a named one would be shared.
  expect(parsed?.named ?? false).toBe(false);
  expect(parsed?.source ?? '').toBe('');
});

test("Temporal's history shards are set explicitly, not left at the image's 4", () => {
  const value = env('temporal').NUM_HISTORY_SHARDS ?? '';
  const m = /^\$\{TEMPORAL_HISTORY_SHARDS:-(\d+)\}$/.exec(value);
  expect(m).not.toBeNull();
  const shards = Number(m![1]);
  expect(shards).toBeGreaterThan(4);
  // A power of two, as Temporal recommends (clusters replicate only between compatible shard counts).
  expect(Math.log2(shards) % 1).toBe(0);
  // The reason is next to it, and the guide tells an existing cluster to keep its count.
  expect(text).toMatch(/fixed when the cluster is first created/);
  expect(readText('docs/deployment.md')).toContain('TEMPORAL_HISTORY_SHARDS=4');
});
