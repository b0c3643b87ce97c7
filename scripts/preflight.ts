/**
 * `npm run preflight -- <host>/<owner>/<name> <branch> [--wait <seconds>]`: before a queue is enabled or
 * resumed, asks railyard to push a throw-away test branch for the queue of <branch>, wait up to the bound
 * for the queue's required checks to start, and say which did not and why (docs/github.md, "Preflight").
 * It starts the preflight (POST /v1/queues/preflight), polls its answer every 2 s, prints the sentence
 * and what started, and exits 0 when every required check started (or the queue has none to wait for),
 * 1 when some did not or nothing could be pushed, 2 on a usage or connection problem.
 *
 * The API: RAILYARD_API_URL, else the address `npm start` listens on (RAILYARD_API_PORT); the key:
 * RAILYARD_API_KEY, else the key `npm start` wrote (.data/dev-api-key). The owner may contain `/`
 * (GitLab subgroups): the host is the first segment, the name the last.
 */
import { parseArgs } from 'node:util';
import { apiUrl, DEFAULT_API_PORT } from '../platform/public-url';
import { readState } from './lib/data-dir';

const USAGE = 'usage: npm run preflight -- <host>/<owner>/<name> <branch> [--wait <seconds>]';
const POLL_MS = 2_000;
/** Past the server's own bound (at most 30 minutes of wait, then the push and the deletion). */
const GIVE_UP_MS = 45 * 60_000;

export interface PreflightArgs {
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
  waitSeconds?: number;
}

export class UsageError extends Error {}

export function parsePreflightArgs(argv: string[]): PreflightArgs {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { wait: { type: 'string' } },
  });
  const [repository, targetBranch, ...rest] = positionals;
  if (!repository || !targetBranch || rest.length > 0) throw new UsageError(USAGE);
  const parts = repository.split('/');
  if (parts.length < 3 || parts.some((p) => p === ''))
    throw new UsageError(`The repository must be <host>/<owner>/<name>, not "${repository}".\n${USAGE}`);
  const repo = { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts.at(-1)! };
  if (values.wait === undefined) return { repo, targetBranch };
  const waitSeconds = Number(values.wait);
  if (!/^\d+$/.test(values.wait) || !Number.isSafeInteger(waitSeconds))
    throw new UsageError(`--wait must be a whole number of seconds, not "${values.wait}".`);
  return { repo, targetBranch, waitSeconds };
}

interface View {
  state: 'running' | 'done';
  waitsUntil: string | null;
  result: {
    kind: string;
    sentence: string;
    started?: string[];
    missing?: string[];
    draftPullRequest?: { number: number; url: string };
  } | null;
}

export interface PreflightClient {
  api: string;
  key: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  print?: (line: string) => void;
}

async function call(c: PreflightClient, path: string, body: object): Promise<View> {
  const res = await (c.fetch ?? fetch)(`${c.api}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': c.key },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new UsageError(`railyard answered ${res.status}: ${text}`);
  return JSON.parse(text) as View;
}

/** Starts the preflight and polls until it answers; the exit code. */
export async function runPreflight(c: PreflightClient, args: PreflightArgs): Promise<number> {
  const print = c.print ?? ((line: string) => console.log(line));
  const sleep = c.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const queue = { repo: args.repo, targetBranch: args.targetBranch };
  let view = await call(c, 'queues/preflight', {
    ...queue,
    ...(args.waitSeconds !== undefined ? { waitSeconds: args.waitSeconds } : {}),
  });
  if (view.state === 'running')
    print(
      `preflight running${view.waitsUntil ? `; it waits for the checks until ${view.waitsUntil}` : ''}...`,
    );
  const giveUpAt = Date.now() + GIVE_UP_MS;
  while (view.state === 'running') {
    if (Date.now() > giveUpAt) throw new UsageError('The preflight did not answer within 45 minutes.');
    await sleep(POLL_MS);
    view = await call(c, 'queues/preflight/result', queue);
  }
  const r = view.result!;
  print(r.sentence);
  if (r.started?.length) print(`  started:     ${r.started.join(', ')}`);
  if (r.missing?.length) print(`  not started: ${r.missing.join(', ')}`);
  if (r.draftPullRequest) print(`  draft PR:    #${r.draftPullRequest.number} ${r.draftPullRequest.url}`);
  return r.kind === 'started' || r.kind === 'no_checks' ? 0 : 1;
}

async function main(): Promise<number> {
  try {
    const args = parsePreflightArgs(process.argv.slice(2));
    const key = process.env.RAILYARD_API_KEY ?? readState('dev-api-key');
    if (!key)
      throw new UsageError(
        'No API key: set RAILYARD_API_KEY, or run `npm start` first (it creates .data/dev-api-key).',
      );
    const api =
      process.env.RAILYARD_API_URL ??
      apiUrl({ port: Number(process.env.RAILYARD_API_PORT ?? DEFAULT_API_PORT) });
    return await runPreflight({ api, key }, args);
  } catch (err) {
    console.error(err instanceof UsageError ? err.message : `preflight failed: ${String(err)}`);
    return 2;
  }
}

if (require.main === module) void main().then((code) => process.exit(code));
