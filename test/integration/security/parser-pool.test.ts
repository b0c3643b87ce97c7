/**
 * The bad-input rows for JUnit files and XML entities, sent over HTTP to an app that parses uploads on
 * worker threads (the parser pool server.ts starts): the same status, the same sentence, and nothing
 * resolved — no marker in an answer, no file, pipe or connection of the sentinel touched. The threads
 * run the same parser as the live API of bad-input.test.ts; this shows the pool keeps its refusals.
 * The CODEOWNERS rows are matched on the threads here (in slices on the event loop there).
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { type JunitParserPool, startJunitParserPool } from '../../../flaky/junit/pool';
import { createApiKeyStore } from '../../../stores/api-keys';
import { buildTestApp, TEST_PAGE_TOKEN_SECRET } from '../../support/app';
import { createMigratedDatabase } from '../../support/postgres';
import { createFlakyStore } from '../../../flaky/service';
import { codeownersCost, junitFiles, xmlEntities } from './bad-input/flaky-tests';
import type { BadInputContext, BadInputRow } from './bad-input/rows';
import { startSentinel } from './support/sentinel';

let pool: Pool;
let parser: JunitParserPool;
let app: FastifyInstance;
let url: string;
let key: string;
let ctx: BadInputContext;

beforeAll(async () => {
  ({ pool } = await createMigratedDatabase('parser_pool_security'));
  key = (await createApiKeyStore(pool).create('acme')).key;
  parser = await startJunitParserPool({ threads: 2 });
  ({ app } = await buildTestApp(pool, {
    flaky: { store: createFlakyStore(pool), pageTokenSecret: TEST_PAGE_TOKEN_SECRET, parser },
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  // These rows use the sentinel only; the rest of the context belongs to other areas' rows.
  ctx = { sentinel: await startSentinel() } as Partial<BadInputContext> as BadInputContext;
}, 90_000);

afterAll(async () => {
  await ctx?.sentinel.close();
  await app?.close();
  await parser?.close();
  await pool?.end();
});

async function send(row: BadInputRow): Promise<{ status: number; body: string }> {
  const body = row.bodyOf ? row.bodyOf(ctx) : row.body;
  const res = await fetch(`${url}${row.route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': key, ...row.headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

describe.each([
  ['JUnit files', junitFiles],
  ['XML entities (expansion, external) refused, never resolved', xmlEntities],
  ['CODEOWNERS that cost time to match (matched on the threads too)', codeownersCost],
])('%s, parsed on worker threads', (_section, rows) => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const cpuBefore = process.cpuUsage();
    const res = await send(row);
    const cpu = process.cpuUsage(cpuBefore);
    // The parser pool's threads are this process's: their matching counts.
    if (row.withinCpuSeconds !== undefined)
      expect((cpu.user + cpu.system) / 1e6).toBeLessThan(row.withinCpuSeconds);
    expect({ status: res.status, body: row.message === null ? null : res.body }).toEqual({
      status: row.status,
      body: row.message,
    });
    await row.check?.(res, ctx);
  });
});
