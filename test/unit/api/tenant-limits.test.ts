/**
 * The pure parts of the tenant limits: the in-flight counter, the HTTP server options built from the
 * timeouts, which database errors mean "busy", and the settings' defaults and bounds.
 */
import { loadApiConfig } from '../../../api/config';
import { databaseBusy } from '../../../api/plugins/database-busy';
import { createAuthFailureLimiter } from '../../../api/plugins/auth-failures';
import { createInFlightCounter } from '../../../api/plugins/in-flight';
import { httpServerOptions } from '../../../api/plugins/server-timeouts';

const ACME = { id: 'a', slug: 'acme' };
const BETA = { id: 'b', slug: 'beta' };

describe('in-flight counter', () => {
  test('caps each (kind, organisation) on its own and frees a slot on release', () => {
    const counter = createInFlightCounter({ uploads: 1, lists: 2 });
    expect(counter.acquire('upload', ACME)).toBeNull();
    expect(counter.acquire('upload', ACME)?.message).toBe(
      'Organisation acme already has 1 upload in progress; retry after 1 second.',
    );
    expect(counter.acquire('upload', BETA)).toBeNull();
    expect(counter.acquire('list', ACME)).toBeNull();
    expect(counter.acquire('list', ACME)).toBeNull();
    expect(counter.acquire('list', ACME)?.retryAfterSeconds).toBe(1);
    counter.release('upload', ACME);
    expect(counter.running('upload', 'a')).toBe(0);
    expect(counter.acquire('upload', ACME)).toBeNull();
  });

  test('a refused acquire takes nothing, and a release never goes below zero', () => {
    const counter = createInFlightCounter({ uploads: 1, lists: 1 });
    counter.acquire('list', ACME);
    counter.acquire('list', ACME);
    expect(counter.running('list', 'a')).toBe(1);
    counter.release('list', ACME);
    counter.release('list', ACME);
    expect(counter.running('list', 'a')).toBe(0);
    expect(counter.acquire('list', ACME)).toBeNull();
  });
});

describe('wrong-key limiter', () => {
  test('refuses an address past its failures until its window ends, and no other address', () => {
    let now = 0;
    const limiter = createAuthFailureLimiter({ max: 2, windowMs: 1_000, now: () => now });
    limiter.record('10.0.0.1');
    expect(limiter.check('10.0.0.1')).toBeNull();
    limiter.record('10.0.0.1');
    now = 400;
    expect(limiter.check('10.0.0.1')?.message).toBe(
      'Address 10.0.0.1 sent more than 2 requests with an invalid API key in one second; retry after 1 second.',
    );
    expect(limiter.check('10.0.0.2')).toBeNull();
    now = 1_000;
    expect(limiter.check('10.0.0.1')).toBeNull();
  });

  test('remembers a bounded number of addresses', () => {
    const limiter = createAuthFailureLimiter({ max: 1, windowMs: 60_000, now: () => 0 });
    for (let i = 0; i < 10_001; i++) limiter.record(`a${i}`);
    // The table started over at the 10,001st address: the first is forgotten, the last is counted.
    expect(limiter.check('a0')).toBeNull();
    expect(limiter.check('a10000')).not.toBeNull();
  });
});

describe('HTTP server options', () => {
  test('carry the bounds to Fastify and to Node', () => {
    const o = httpServerOptions({ headersMs: 10_000, requestMs: 60_000, idleMs: 45_000 });
    expect(o).toMatchObject({
      requestTimeout: 60_000,
      connectionTimeout: 45_000,
      http: { headersTimeout: 10_000, requestTimeout: 60_000, connectionsCheckingInterval: 1_000 },
    });
  });

  test('headers never get longer than the whole request, and small bounds are checked often', () => {
    const o = httpServerOptions({ headersMs: 5_000, requestMs: 400, idleMs: 1_000 });
    expect(o.http).toEqual({ headersTimeout: 400, requestTimeout: 400, connectionsCheckingInterval: 100 });
  });
});

describe('database busy', () => {
  const pgError = (code: string) => Object.assign(new Error('canceling statement'), { code });
  test.each([
    [pgError('57014'), 'statement_timeout'],
    [pgError('55P03'), 'statement_timeout'],
    [new Error('timeout exceeded when trying to connect'), 'pool_exhausted'],
    [pgError('23505'), null],
    [new Error('boom'), null],
    ['not an error', null],
  ])('%p → %p', (err, kind) => {
    expect(databaseBusy(err)).toBe(kind);
  });
});

describe('settings', () => {
  const base = { DATABASE_URL: 'postgres://localhost/railyard' };

  test('defaults', () => {
    expect(loadApiConfig(base)).toMatchObject({
      RAILYARD_ORG_REQUESTS_PER_SECOND: 100,
      RAILYARD_ORG_UPLOADS_IN_FLIGHT: 4,
      RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT: 8,
      RAILYARD_API_POOL_SIZE: 10,
      RAILYARD_API_KEY_POOL_SIZE: 2,
      RAILYARD_API_STATEMENT_TIMEOUT_MS: 10_000,
      RAILYARD_API_HEADERS_TIMEOUT_MS: 10_000,
      RAILYARD_API_REQUEST_TIMEOUT_MS: 60_000,
      RAILYARD_API_IDLE_TIMEOUT_MS: 120_000,
    });
  });

  test('set, and refused when out of range', () => {
    expect(
      loadApiConfig({ ...base, RAILYARD_ORG_REQUESTS_PER_SECOND: '0', RAILYARD_ORG_UPLOADS_IN_FLIGHT: '16' }),
    ).toMatchObject({ RAILYARD_ORG_REQUESTS_PER_SECOND: 0, RAILYARD_ORG_UPLOADS_IN_FLIGHT: 16 });
    expect(() => loadApiConfig({ ...base, RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT: '0' })).toThrow(
      /RAILYARD_ORG_LIST_QUERIES_IN_FLIGHT="0" is invalid/,
    );
    expect(() => loadApiConfig({ ...base, RAILYARD_API_STATEMENT_TIMEOUT_MS: 'soon' })).toThrow(
      /RAILYARD_API_STATEMENT_TIMEOUT_MS="soon" is invalid/,
    );
  });
});
